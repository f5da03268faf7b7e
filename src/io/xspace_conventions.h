// For trace-viewer JSON exported from an XSpace (JAX `*.trace.json.gz`),
// which has no categories: gives its tracks the meaning the XPlane reader
// gives the same lines. On "/device:GPU:<n>" planes, "Stream #<s>(...)"
// lines become GPU streams and their events kernels, copies or fills by
// name; host events with a correlation id become launches; XLA op
// descriptions are kept only on op lines ("XLA Ops", GPU streams). When no
// process has an XSpace plane name, it drops every XLA op description
// (XLA-named args in another trace, such as Kineto's "flops") and returns
// false. Called by the Chrome JSON reader before Finish.
#pragma once

#include "model/builder.h"

namespace mlprof {

bool AdoptXSpaceConventions(ProfileBuilder& b);

}  // namespace mlprof
