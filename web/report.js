// mlprof report.html: the page's script (inlined by mlprof at build time).
// It reads the report's data (one JSON document in the page) and builds the
// page. Every string from a trace is set as text (textContent, or escaped
// where a chart tooltip takes markup), never parsed as HTML.
(function () {
  'use strict';
  const errors = [];
  const errorBox = document.createElement('pre');
  errorBox.id = 'mlprof-errors';
  function noteError(msg) {
    errors.push(String(msg));
    errorBox.textContent = errors.join('\n');
    document.body.dataset.errors = String(errors.length);
  }
  window.addEventListener('error', function (e) { noteError('error: ' + e.message); });
  window.addEventListener('unhandledrejection', function (e) { noteError('rejection: ' + e.reason); });

  function el(tag, cls, text) {
    const e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined && text !== null) e.textContent = String(text);
    return e;
  }
  function esc(s) {
    return String(s).replace(/[&<>"']/g, function (c) {
      return { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' }[c];
    });
  }
  function fmt(v, digits) {
    if (v === null || v === undefined || !isFinite(v)) return '-';
    const a = Math.abs(v);
    if (a !== 0 && (a >= 1e6 || a < 1e-3)) return v.toExponential(2);
    return v.toLocaleString('en-US', { maximumFractionDigits: digits === undefined ? 3 : digits });
  }

  const data = JSON.parse(document.getElementById('mlprof-data').textContent);
  document.body.dataset.errors = '0';

  // --- header, navigation, cards, warnings -------------------------------------
  const header = el('header');
  header.appendChild(el('h1', null, data.title));
  header.appendChild(el('div', 'inputs', data.inputs.join('\n')));
  document.body.appendChild(header);
  const nav = el('nav');
  document.body.appendChild(nav);
  const main = el('main');
  document.body.appendChild(main);
  main.appendChild(errorBox);
  if (data.cards.length) {
    const cards = el('div', 'cards');
    for (const c of data.cards) {
      const card = el('div', 'card');
      card.appendChild(el('div', 'label', c.label));
      card.appendChild(el('div', 'value', c.value));
      if (c.detail) card.appendChild(el('div', 'detail', c.detail));
      cards.appendChild(card);
    }
    main.appendChild(cards);
  }
  if (!data.charts_built_in) {
    main.appendChild(el('p', 'notice',
      'Charts were not built into this mlprof (ECharts was not installed when it was built: scripts/setup.sh ' +
      'installs it). The tables below hold the same figures.'));
  }

  // --- tables: sortable by any column, filtered by text ---------------------------
  function renderTable(t) {
    const block = el('div', 'table-block');
    block.id = 'table-' + t.id;
    block.appendChild(el('h3', null, t.title || t.id));
    const tools = el('div', 'tools');
    const filter = el('input');
    filter.type = 'search';
    filter.placeholder = 'filter rows';
    tools.appendChild(filter);
    const count = el('span');
    tools.appendChild(count);
    block.appendChild(tools);
    const scroll = el('div', 'scroll');
    const table = el('table');
    const thead = el('thead');
    const hr = el('tr');
    const ths = t.columns.map(function (c, i) {
      const th = el('th', null, c.label);
      th.title = c.name + ' (' + c.unit + '): ' + c.description;
      th.addEventListener('click', function () { sortBy(i); });
      hr.appendChild(th);
      return th;
    });
    thead.appendChild(hr);
    table.appendChild(thead);
    const tbody = el('tbody');
    table.appendChild(tbody);
    scroll.appendChild(table);
    block.appendChild(scroll);
    const rows = t.text.map(function (cells, r) {
      const tr = el('tr');
      cells.forEach(function (s, c) {
        tr.appendChild(el('td', t.columns[c].numeric ? 'num' : 'text', s));
      });
      return { tr: tr, r: r, key: cells.join('\u0001').toLowerCase() };
    });
    let order = rows.slice();
    let sorted = -1, desc = false;
    function draw() {
      const q = filter.value.trim().toLowerCase();
      tbody.textContent = '';
      let shown = 0;
      for (const row of order) {
        if (q && row.key.indexOf(q) < 0) continue;
        tbody.appendChild(row.tr);
        ++shown;
      }
      let msg = shown + ' of ' + rows.length + ' rows';
      if (t.total_rows > rows.length) msg += ' (the first ' + rows.length + ' of ' + t.total_rows + '; report.xlsx and --format csv have all)';
      count.textContent = msg;
    }
    function sortBy(c) {
      desc = sorted === c ? !desc : t.columns[c].numeric;
      sorted = c;
      const numeric = t.columns[c].numeric;
      order = rows.slice().sort(function (a, b) {
        let x, y;
        if (numeric) {
          x = t.raw[a.r][c]; y = t.raw[b.r][c];
          if (x === null && y === null) return a.r - b.r;
          if (x === null) return 1;
          if (y === null) return -1;
        } else {
          x = t.text[a.r][c]; y = t.text[b.r][c];
        }
        const d = x < y ? -1 : x > y ? 1 : 0;
        return (desc ? -d : d) || a.r - b.r;
      });
      ths.forEach(function (th, i) {
        th.className = i === c ? (desc ? 'sorted-desc' : 'sorted-asc') : '';
      });
      draw();
    }
    filter.addEventListener('input', draw);
    draw();
    if (t.notes.length) {
      const ul = el('ul', 'notes');
      for (const n of t.notes) ul.appendChild(el('li', null, n));
      block.appendChild(ul);
    }
    return block;
  }

  // --- charts --------------------------------------------------------------------
  const charts = [];
  const palette = ['#3a62c9', '#e5843a', '#4aa564', '#c94a4a', '#8a63c9', '#8c6d4f', '#d96cb0', '#7f7f7f',
    '#b5b83a', '#3ab5c4'];
  function baseOption(c) {
    return {
      animation: false,
      color: palette,
      title: { text: c.title, left: 8, top: 4, textStyle: { fontSize: 14 } },
      toolbox: { right: 12, feature: { saveAsImage: { title: 'save' } } },
    };
  }
  function barOption(c) {
    const o = baseOption(c);
    o.legend = { type: 'scroll', top: 28, left: 8, right: 60 };
    o.grid = { left: 70, right: 24, top: 70, bottom: 70 };
    o.tooltip = {
      trigger: 'axis', axisPointer: { type: 'shadow' }, confine: true,
      formatter: function (ps) {
        if (!ps.length) return '';
        let total = 0;
        let s = '<b>' + esc(ps[0].axisValue) + '</b>';
        for (const p of ps) {
          if (p.value === null || p.value === undefined) continue;
          total += p.value;
          s += '<br>' + p.marker + esc(p.seriesName) + ': ' + esc(fmt(p.value));
        }
        return s + '<br>total: ' + esc(fmt(total)) + ' ' + esc(c.y_name);
      },
    };
    o.xAxis = { type: 'category', data: c.categories, name: c.x_name, nameLocation: 'middle', nameGap: 44,
      axisLabel: { rotate: c.categories.length > 12 ? 40 : 0, hideOverlap: true } };
    o.yAxis = { type: 'value', name: c.y_name, nameLocation: 'middle', nameGap: 52 };
    o.dataZoom = c.categories.length > 40 ? [{ type: 'slider', bottom: 4, height: 14 }] : [];
    o.series = c.series.map(function (s) {
      return { type: 'bar', stack: 'all', name: s.name, data: s.values, emphasis: { focus: 'series' } };
    });
    return o;
  }
  function heatmapOption(c) {
    const o = baseOption(c);
    const cells = [];
    c.series.forEach(function (s, r) {
      s.values.forEach(function (v, x) { cells.push([x, r, v]); });
    });
    o.grid = { left: 230, right: 30, top: 40, bottom: 80 };
    o.tooltip = {
      confine: true,
      formatter: function (p) {
        return esc(c.rows[p.value[1]]) + '<br>' + esc(c.x_name) + ' ' + esc(c.categories[p.value[0]]) +
          '<br>busy ' + esc(fmt(100 * p.value[2], 1)) + ' %';
      },
    };
    o.xAxis = { type: 'category', data: c.categories, name: c.x_name, nameLocation: 'middle', nameGap: 30,
      splitArea: { show: false }, axisLabel: { hideOverlap: true } };
    o.yAxis = { type: 'category', data: c.rows, inverse: true,
      axisLabel: { width: 210, overflow: 'truncate', fontSize: 11 } };
    o.visualMap = { min: 0, max: 1, calculable: false, orient: 'horizontal', left: 'center', bottom: 4,
      itemHeight: 120, text: ['busy', 'idle'], inRange: { color: ['#f4f6fb', '#9db4e8', '#3a62c9', '#1b2f66'] } };
    o.series = [{ type: 'heatmap', data: cells, progressive: 0 }];
    return o;
  }
  function rooflineOption(c) {
    const o = baseOption(c);
    const groups = {};
    let xmin = Infinity, xmax = 0, ymin = Infinity;
    for (const p of c.points) {
      if (!(p.x > 0 && p.y > 0)) continue;
      (groups[p.series] = groups[p.series] || []).push([p.x, p.y, p.label]);
      xmin = Math.min(xmin, p.x); xmax = Math.max(xmax, p.x); ymin = Math.min(ymin, p.y);
    }
    const peak = c.roof.peak, bw = c.roof.bandwidth;
    const ridge = peak / bw;
    if (!isFinite(xmin)) { xmin = ridge / 100; xmax = ridge * 100; ymin = peak / 1000; }
    xmin = Math.min(xmin, ridge) / 4; xmax = Math.max(xmax, ridge) * 4;
    const roof = [[xmin, Math.min(peak, bw * xmin)], [ridge, peak], [xmax, peak]];
    o.legend = { type: 'scroll', top: 28, left: 8, right: 60 };
    o.grid = { left: 80, right: 30, top: 70, bottom: 60 };
    o.tooltip = {
      trigger: 'item', confine: true,
      formatter: function (p) {
        if (p.seriesType === 'line') return esc(p.seriesName);
        return '<b>' + esc(p.value[2]) + '</b><br>' + esc(p.seriesName) + '<br>intensity ' + esc(fmt(p.value[0])) +
          ' FLOP/B<br>' + esc(fmt(p.value[1] / 1e12)) + ' TFLOP/s';
      },
    };
    o.xAxis = { type: 'log', name: c.x_name, nameLocation: 'middle', nameGap: 30, min: xmin, max: xmax,
      axisLabel: { formatter: function (v) { return fmt(v, 2); } } };
    o.yAxis = { type: 'log', name: c.y_name, nameLocation: 'middle', nameGap: 60,
      min: Math.min(ymin / 2, peak / 1e4), max: peak * 2,
      axisLabel: { formatter: function (v) { return fmt(v / 1e12, 3); } } };
    o.series = [{ type: 'line', name: c.roof.name, data: roof, symbol: 'none', lineStyle: { color: '#222', width: 2 },
      itemStyle: { color: '#222' }, silent: true }];
    for (const k of Object.keys(groups)) {
      o.series.push({ type: 'scatter', name: k, data: groups[k], symbolSize: 9 });
    }
    return o;
  }
  function treemapOption(c) {
    const o = baseOption(c);
    const nodes = c.nodes.map(function (n) { return { name: n.name, value: n.value, children: [] }; });
    const roots = [];
    c.nodes.forEach(function (n, i) {
      if (n.parent >= 0 && n.parent < i) nodes[n.parent].children.push(nodes[i]); else roots.push(nodes[i]);
    });
    for (const n of nodes) if (!n.children.length) delete n.children;
    o.tooltip = {
      confine: true,
      formatter: function (p) {
        const path = (p.treePathInfo || []).map(function (x) { return x.name; }).filter(Boolean).join(' / ');
        return esc(path || p.name) + '<br>' + esc(fmt(p.value)) + ' ' + esc(c.y_name);
      },
    };
    o.series = [{ type: 'treemap', data: roots, top: 36, bottom: 30, left: 8, right: 8, leafDepth: 2,
      roam: false, label: { show: true, formatter: '{b}', overflow: 'truncate' },
      upperLabel: { show: true, height: 18 }, levels: [{ itemStyle: { borderWidth: 2, gapWidth: 2 } },
        { itemStyle: { borderWidth: 1, gapWidth: 1 } }] }];
    return o;
  }
  // With #probe-tooltips in the URL (the browser test), every chart's tooltip
  // formatter runs on each of its rows, points or nodes and its markup goes
  // into a hidden element, as ECharts would show it on hover: an unescaped
  // trace string would become an element there.
  const probe = location.hash === '#probe-tooltips' ? el('div') : null;
  if (probe) {
    probe.id = 'mlprof-tooltip-probe';
    probe.hidden = true;
    document.body.appendChild(probe);
  }
  function probeTooltips(c, option) {
    const f = option.tooltip && option.tooltip.formatter;
    if (typeof f !== 'function') return;
    const out = [];
    if (c.kind === 'bar') {
      c.categories.forEach(function (cat, i) {
        out.push(f(c.series.map(function (s) {
          return { axisValue: cat, marker: '', seriesName: s.name, value: s.values[i] };
        })));
      });
    } else if (c.kind === 'heatmap') {
      c.rows.forEach(function (r, i) { out.push(f({ value: [0, i, 0.5] })); });
    } else if (c.kind === 'roofline') {
      c.points.forEach(function (p) {
        out.push(f({ seriesType: 'scatter', seriesName: p.series, value: [p.x, p.y, p.label] }));
      });
    } else {
      c.nodes.forEach(function (n) { out.push(f({ treePathInfo: [{ name: n.name }], name: n.name, value: n.value })); });
    }
    const box = el('div');
    box.innerHTML = out.join('<hr>');
    probe.appendChild(box);
  }
  function renderChart(c, parent) {
    const div = el('div', 'chart');
    div.id = 'chart-' + c.id;
    div.dataset.chart = c.kind;
    if (c.kind === 'heatmap') div.style.height = Math.max(220, 110 + 16 * c.rows.length) + 'px';
    if (c.kind === 'treemap' || c.kind === 'roofline') div.classList.add('tall');
    parent.appendChild(div);
    if (!window.echarts) return;
    try {
      const chart = window.echarts.init(div, null, { renderer: 'svg' });
      const option = c.kind === 'bar' ? barOption(c) : c.kind === 'heatmap' ? heatmapOption(c)
        : c.kind === 'roofline' ? rooflineOption(c) : treemapOption(c);
      chart.setOption(option);
      charts.push({ chart: chart, div: div });
      if (probe) probeTooltips(c, option);
    } catch (e) {
      noteError('chart ' + c.id + ': ' + e);
    }
  }

  // --- sections -------------------------------------------------------------------
  for (const s of data.sections) {
    const sec = el('section');
    sec.id = s.id;
    const a = el('a', null, s.title);
    a.href = '#' + encodeURIComponent(s.id);
    nav.appendChild(a);
    sec.appendChild(el('h2', null, s.title));
    for (const p of s.text) sec.appendChild(el('p', null, p));
    for (const c of s.charts) renderChart(c, sec);
    for (const t of s.tables) sec.appendChild(renderTable(t));
    main.appendChild(sec);
  }
  if (data.warnings.length) {
    const sec = el('section');
    sec.id = 'import-problems';
    const a = el('a', null, 'Import problems');
    a.href = '#import-problems';
    nav.appendChild(a);
    sec.appendChild(el('h2', null, 'Import problems'));
    const ul = el('ul', 'warnings');
    for (const w of data.warnings) ul.appendChild(el('li', null, w));
    sec.appendChild(ul);
    main.appendChild(sec);
  }

  window.addEventListener('resize', function () {
    for (const c of charts) c.chart.resize();
  });
  // For tests and for anyone checking the page: how many charts were asked
  // for and how many hold drawn shapes.
  function mark() {
    let drawn = 0;
    for (const c of charts) {
      if (c.div.querySelectorAll('svg path, svg rect').length > 0) ++drawn;
    }
    let asked = 0;
    for (const s of data.sections) asked += s.charts.length;
    document.body.dataset.charts = String(asked);
    document.body.dataset.drawn = String(drawn);
    document.body.dataset.ready = '1';
  }
  mark();
  setTimeout(mark, 100);
})();
