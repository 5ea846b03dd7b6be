// locksim timeline: draws the embedded view model (see traces/view_model.go)
// as SVG. Every string from the trace is inserted as text (textContent,
// setAttribute), never as markup.
(function () {
  'use strict';

  var statusEl = document.getElementById('locksim-status');
  var errorsEl = document.getElementById('locksim-errors');
  function reportError(msg) {
    errorsEl.hidden = false;
    var line = document.createElement('div');
    line.textContent = 'locksim-error: ' + msg;
    errorsEl.appendChild(line);
    document.body.setAttribute('data-locksim-status', 'error');
    statusEl.textContent = 'locksim-error';
  }
  window.addEventListener('error', function (e) {
    reportError((e.message || 'error') + (e.lineno ? ' (line ' + e.lineno + ')' : ''));
  });
  window.addEventListener('unhandledrejection', function (e) {
    reportError('unhandled rejection: ' + (e.reason && e.reason.message || e.reason));
  });

  var SVG = 'http://www.w3.org/2000/svg';
  var PALETTE = ['#2563eb', '#ea580c', '#7c3aed', '#0d9488', '#db2777', '#4d7c0f', '#0369a1', '#a16207', '#475569', '#be123c'];
  var C = {
    acqOK: '#1a7f37', acqFail: '#afb8c1', unknown: '#e16f24', release: '#57606a', relBad: '#cf222e',
    renew: '#0e8a9a', res: '#32383f', resDim: '#8c959f', red: '#cf222e', expire: '#e16f24',
    created: '#1a7f37', deleted: '#32383f', lost: '#cf222e', cmd: '#8c959f', write: '#32383f', ttl: '#24292f'
  };
  var LABEL_W = 178;
  var GROUP_H = 18;
  var FAULT_ROW = 15; // one row of a lane's fault strip
  var ROW_H = 24; // node lane key rows
  var SHADE_KINDS = { pause: true, partition: true, crash: true, 'node-crash': true, resume: true, heal: true };

  var D;
  var view = { t0: 0, t1: 1 };
  var layout = [];        // per lane: {y, h}
  var totalH = 0;
  var tips = [];          // tooltip builders for the current render
  var pinned = false;
  var selectedViolation = -1;
  var flashEv = -1;
  var lanesSvg, axisSvg, wrap;
  var plotW = 600;
  var maxTTL = 1;
  var lastMouse = null;
  var renderMs = 0;

  // ---------- small helpers ----------
  function el(tag, attrs, parent) {
    var e = document.createElementNS(SVG, tag);
    if (attrs) {
      for (var k in attrs) {
        if (Object.prototype.hasOwnProperty.call(attrs, k) && attrs[k] !== undefined && attrs[k] !== null) {
          e.setAttribute(k, attrs[k]);
        }
      }
    }
    if (parent) parent.appendChild(e);
    return e;
  }
  function svgText(parent, x, y, s, cls, extra) {
    var a = { x: x, y: y, 'class': cls };
    if (extra) for (var k in extra) a[k] = extra[k];
    var t = el('text', a, parent);
    t.textContent = s;
    return t;
  }
  function h(tag, cls, text, parent) {
    var e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined && text !== null) e.textContent = text;
    if (parent) parent.appendChild(e);
    return e;
  }
  function fmtT(ns) {
    var span = view.t1 - view.t0;
    var dec = span < 2e6 ? 6 : span < 2e8 ? 4 : 3;
    return (ns / 1e9).toFixed(dec) + ' s';
  }
  function fmtAbs(ns) { return (ns / 1e9).toFixed(6).replace(/0{1,3}$/, '') + ' s'; }
  function fmtDur(ns) {
    var a = Math.abs(ns);
    if (a >= 1e9) return (ns / 1e9).toFixed(a >= 1e10 ? 1 : 2) + ' s';
    if (a >= 1e6) return (ns / 1e6).toFixed(1) + ' ms';
    if (a >= 1e3) return (ns / 1e3).toFixed(1) + ' \u00b5s';
    return ns + ' ns';
  }
  function x(t) { return LABEL_W + (t - view.t0) / (view.t1 - view.t0) * plotW; }
  function tAt(px) { return view.t0 + (px - LABEL_W) / plotW * (view.t1 - view.t0); }
  function clientColor(name) {
    var li = laneByName[name];
    if (li === undefined) return '#8c959f';
    return PALETTE[D.lanes[li].color % PALETTE.length];
  }
  function visible(a, b) { return b >= view.t0 && a <= view.t1; }
  function clampX(px) { return Math.max(LABEL_W - 5, Math.min(LABEL_W + plotW + 5, px)); }
  function bar(parent, t0, t1, y, hgt, attrs, minW) {
    var x0 = clampX(x(t0)), x1 = clampX(x(t1));
    var w = Math.max(x1 - x0, minW || 1);
    var a = { x: x0, y: y, width: w, height: hgt };
    for (var k in attrs) a[k] = attrs[k];
    return el('rect', a, parent);
  }
  function tip(fn) { tips.push(fn); return String(tips.length - 1); }
  function opEnd(op) { return op['return'] < 0 ? D.end_ns : op['return']; }
  function evText(e) {
    var s = e.party;
    if (e.kind === 'cmd' || e.kind === 'service') {
      s += ': ' + (e.args || []).join(' ');
      if (e.reply) s += ' \u2192 ' + e.reply;
    } else {
      s += ' ' + e.kind;
      if (e.key) s += ' ' + e.key;
      if (e.detail) s += ' (' + e.detail + ')';
      if (e.dur_ns) s += ' for ' + fmtDur(e.dur_ns);
    }
    if (e.change) s += ' [' + e.change + ']';
    return s;
  }
  function textFits(s, w, px) { return s.length * (px || 6.6) + 8 < w; }
  function clipText(parent, t0, t1, y, s, cls) {
    var x0 = Math.max(x(t0), LABEL_W), x1 = Math.min(x(t1), LABEL_W + plotW);
    var w = x1 - x0;
    if (w < 30) return;
    if (!textFits(s, w)) {
      var n = Math.floor((w - 14) / 6.6);
      if (n < 4) return;
      s = s.slice(0, n) + '\u2026';
    }
    svgText(parent, x0 + 4, y, s, cls);
  }

  var laneByName = {};
  var cited = {}; // event index -> cited by some violation

  // ---------- layout ----------
  // laneRows lays out one lane from its top: a fault strip (one row per
  // overlapping fault), then for a thread its ops, hold and lease rows, for
  // a node its key rows and command ticks, for others their ticks.
  function laneRows(l) {
    var strip = 4 + Math.max(l.fault_rows || 1, 1) * FAULT_ROW;
    switch (l.kind) {
      case 'thread':
        if (l.compact) return { fault: 4, h: Math.max(36, strip + 16) };
        return { fault: 4, ops: strip + 2, hold: strip + 20, lease: strip + 39, h: strip + 51 };
      case 'node':
        return { fault: 4, keys: strip + 2, h: strip + 2 + Math.max(l.rows, 1) * ROW_H + 16 };
      default:
        return { fault: 4, ticks: strip + 1, h: strip + 18 };
    }
  }
  var groups = [];
  function computeLayout() {
    layout = [];
    groups = [];
    var y = 0, prevKind = null;
    var names = { thread: 'CLIENT THREADS', node: 'REDIS NODES', service: 'SERVICES', other: 'OTHER PARTIES' };
    D.lanes.forEach(function (l, i) {
      if (l.kind !== prevKind) {
        groups.push({ y: y, name: names[l.kind] || l.kind });
        y += GROUP_H;
        prevKind = l.kind;
      }
      var L = laneRows(l);
      L.y = y;
      layout.push(L);
      y += L.h;
    });
    totalH = y + 4;
  }

  // ---------- rendering ----------
  var raf = 0;
  function schedule() {
    if (!raf) raf = requestAnimationFrame(function () { raf = 0; render(); });
  }

  function defs(svg) {
    var d = el('defs', null, svg);
    var p = el('pattern', { id: 'hatch-red', width: 6, height: 6, patternUnits: 'userSpaceOnUse', patternTransform: 'rotate(45)' }, d);
    el('rect', { width: 6, height: 6, fill: '#ffebe9' }, p);
    el('line', { x1: 0, y1: 0, x2: 0, y2: 6, stroke: C.red, 'stroke-width': 3 }, p);
    p = el('pattern', { id: 'hatch-pause', width: 8, height: 8, patternUnits: 'userSpaceOnUse', patternTransform: 'rotate(-45)' }, d);
    el('rect', { width: 8, height: 8, fill: 'rgba(101,109,118,0.10)' }, p);
    el('line', { x1: 0, y1: 0, x2: 0, y2: 8, stroke: 'rgba(101,109,118,0.35)', 'stroke-width': 2 }, p);
    p = el('pattern', { id: 'hatch-part', width: 8, height: 8, patternUnits: 'userSpaceOnUse' }, d);
    el('rect', { width: 8, height: 8, fill: 'rgba(130,80,223,0.08)' }, p);
    el('circle', { cx: 4, cy: 4, r: 1.3, fill: 'rgba(130,80,223,0.55)' }, p);
    p = el('pattern', { id: 'hatch-down', width: 6, height: 6, patternUnits: 'userSpaceOnUse', patternTransform: 'rotate(45)' }, d);
    el('rect', { width: 6, height: 6, fill: 'rgba(36,41,47,0.16)' }, p);
    el('line', { x1: 0, y1: 0, x2: 0, y2: 6, stroke: 'rgba(36,41,47,0.35)', 'stroke-width': 2 }, p);
    var cp = el('clipPath', { id: 'plot-clip' }, d);
    el('rect', { x: LABEL_W, y: 0, width: plotW, height: totalH }, cp);
  }

  function niceStep(span, px) {
    var target = span / Math.max(px / 110, 1);
    var p = Math.pow(10, Math.floor(Math.log10(target)));
    var steps = [1, 2, 5, 10];
    for (var i = 0; i < steps.length; i++) if (steps[i] * p >= target) return steps[i] * p;
    return 10 * p;
  }
  function tickLabel(t, step) {
    var dec = Math.max(0, Math.ceil(-Math.log10(step / 1e9) - 1e-9));
    return (t / 1e9).toFixed(Math.min(dec, 9)) + ' s';
  }

  function render() {
    var width = Math.max(wrap.clientWidth, 500);
    plotW = width - LABEL_W - 8;
    tips = [];
    lanesSvg.textContent = '';
    axisSvg.textContent = '';
    lanesSvg.setAttribute('width', width);
    lanesSvg.setAttribute('height', totalH);
    lanesSvg.setAttribute('viewBox', '0 0 ' + width + ' ' + totalH);
    axisSvg.setAttribute('width', width);
    axisSvg.setAttribute('viewBox', '0 0 ' + width + ' 30');
    defs(lanesSvg);

    // Axis and grid.
    var step = niceStep(view.t1 - view.t0, plotW);
    var first = Math.ceil(view.t0 / step) * step;
    var grid = el('g', null, lanesSvg);
    for (var t = first; t <= view.t1; t += step) {
      var px = x(t);
      el('line', { x1: px, y1: 22, x2: px, y2: 30, 'class': 'ax-tick' }, axisSvg);
      svgText(axisSvg, px, 15, tickLabel(t, step), 'ax-text', { 'text-anchor': 'middle' });
    }
    svgText(axisSvg, 8, 15, 'virtual time', 'ax-text');

    // Lane backgrounds.
    D.lanes.forEach(function (l, i) {
      var L = layout[i];
      el('rect', { x: 0, y: L.y, width: width, height: L.h, 'class': 'lane-bg-' + (i % 2) }, grid);
      el('line', { x1: 0, y1: L.y + L.h - 0.5, x2: width, y2: L.y + L.h - 0.5, 'class': 'lane-sep' }, grid);
    });
    groups.forEach(function (g) {
      el('rect', { x: 0, y: g.y, width: width, height: GROUP_H, 'class': 'group-bg' }, grid);
      svgText(grid, 8, g.y + 13, g.name, 'group-text');
    });
    for (t = first; t <= view.t1; t += step) {
      px = x(t);
      groups.forEach(function (g, gi) {
        var top = g.y + GROUP_H;
        var bottom = gi + 1 < groups.length ? groups[gi + 1].y : totalH;
        el('line', { x1: px, y1: top, x2: px, y2: bottom, 'class': 'grid' }, grid);
      });
    }

    var plot = el('g', { 'clip-path': 'url(#plot-clip)' }, lanesSvg);
    var layers = {
      shade: el('g', null, plot), items: el('g', null, plot), marks: el('g', null, plot),
      viol: el('g', null, plot), top: el('g', null, plot)
    };
    drawShades(layers.shade);
    drawKeys(layers.items);
    drawHolds(layers.items);
    drawOps(layers.items);
    drawEvents(layers.marks);
    drawViolations(layers.viol);
    drawLabels(lanesSvg, width);
    updateZoomInfo();
    if (lastMouse) drawCursor(lastMouse);
  }

  function drawLabels(svg, width) {
    var g = el('g', null, svg);
    D.lanes.forEach(function (l, i) {
      var L = layout[i];
      el('rect', { x: 0, y: L.y, width: LABEL_W, height: L.h - 1, 'class': 'label-bg' }, g);
      var sub;
      if (l.kind === 'thread') {
        el('rect', { x: 6, y: L.y + 8, width: 5, height: L.h - 16, rx: 2, fill: PALETTE[l.color % PALETTE.length] }, g);
        sub = 'process ' + l.process + (l.compact ? ', no operations' : '');
        svgText(g, LABEL_W - 6, L.y + L.fault + 7, 'faults', 'row-label', { 'text-anchor': 'end' });
        if (!l.compact) {
          svgText(g, LABEL_W - 6, L.y + L.ops + 8, 'ops', 'row-label', { 'text-anchor': 'end' });
          svgText(g, LABEL_W - 6, L.y + L.hold + 9, 'hold', 'row-label', { 'text-anchor': 'end' });
          svgText(g, LABEL_W - 6, L.y + L.lease + 5, 'lease', 'row-label', { 'text-anchor': 'end' });
        }
      } else if (l.kind === 'node') {
        el('rect', { x: 6, y: L.y + 8, width: 5, height: L.h - 16, rx: 2, fill: '#a40e26' }, g);
        sub = 'lock keys: owner, TTL';
      } else {
        el('rect', { x: 6, y: L.y + 8, width: 5, height: L.h - 16, rx: 2, fill: '#8c959f' }, g);
        sub = l.kind === 'service' ? 'service requests' : 'events';
      }
      var name = l.name.length > 16 ? l.name.slice(0, 15) + '\u2026' : l.name;
      var nt = svgText(g, 17, L.y + 17, name, 'label-name');
      var title = el('title', null, nt);
      title.textContent = l.name;
      if (L.h >= 28) svgText(g, 17, L.y + 30, sub, 'label-sub');
    });
    el('line', { x1: LABEL_W - 0.5, y1: 0, x2: LABEL_W - 0.5, y2: totalH, 'class': 'label-sep' }, g);
  }

  function shadeFill(kind) {
    return kind === 'pause' ? 'url(#hatch-pause)' : kind === 'partition' ? 'url(#hatch-part)' :
      kind === 'fault' ? 'rgba(188,76,0,0.06)' : 'url(#hatch-down)';
  }
  var SHADE_SOLID = { pause: '#8c959f', partition: '#8250df', crash: '#24292f', down: '#24292f', fault: '#bc4c00' };
  function drawShades(g) {
    (D.shades || []).forEach(function (s) {
      if (!visible(s.start, s.end)) return;
      var L = layout[s.lane];
      var id = tip(function () { return shadeTip(s); });
      bar(g, s.start, s.end, L.y + 1, L.h - 2, {
        fill: shadeFill(s.kind), stroke: s.kind === 'partition' ? 'rgba(130,80,223,0.6)' : 'rgba(87,96,106,0.55)',
        'stroke-dasharray': '4 3', 'data-tip': id, 'class': 'hit'
      }, 2);
      var col = SHADE_SOLID[s.kind] || '#8c959f';
      var ry = L.y + L.fault + s.row * FAULT_ROW;
      var r = bar(g, s.start, s.end, ry, 13, { fill: col, rx: 2, 'data-tip': id, 'class': 'hit' }, 3);
      if (s.ev === flashEv) r.setAttribute('class', 'hit flash');
      var lx = Math.max(s.start, view.t0);
      if (cited[s.ev] && x(s.start) >= LABEL_W) lx = tAt(x(s.start) + 12); // leave room for the citation
      clipText(g, lx, s.end, ry + 10, s.label, 'bar-text');
    });
  }

  function ttlAt(span, t) {
    var pts = span.ttl || [];
    var cur = null;
    for (var i = 0; i < pts.length; i++) {
      if (pts[i].t <= t) cur = pts[i]; else break;
    }
    if (!cur) return null;
    if (cur.ttl === -1) return 'no TTL (persistent)';
    if (cur.ttl < 0) return 'unknown (changed by a script or replication)';
    return fmtDur(Math.max(cur.ttl - (t - cur.t), 0));
  }

  function drawKeys(g) {
    (D.keys || []).forEach(function (s, si) {
      if (s.lane < 0 || !visible(s.start, s.end)) return;
      var L = layout[s.lane];
      var top = L.y + L.keys + s.row * ROW_H, hh = ROW_H - 5;
      var col = s.owner ? clientColor(s.owner) : '#8c959f';
      var id = tip(function (t) { return keyTip(s, t); });
      bar(g, s.start, s.end, top, hh, {
        fill: col, 'fill-opacity': 0.22, stroke: col, 'stroke-width': 1.2, 'data-tip': id, 'class': 'hit'
      }, 2);
      // TTL: a falling line from the top (the largest TTL in the trace) to
      // the bottom (zero); each known change starts a new segment.
      var pts = s.ttl || [];
      for (var i = 0; i < pts.length; i++) {
        var p = pts[i];
        var tEnd = i + 1 < pts.length ? pts[i + 1].t : s.end;
        if (p.ttl < 0 || !visible(p.t, tEnd)) continue;
        var v0 = p.ttl, v1 = Math.max(p.ttl - (tEnd - p.t), 0);
        var y0 = top + hh - v0 / maxTTL * (hh - 2) - 1, y1 = top + hh - v1 / maxTTL * (hh - 2) - 1;
        el('line', { x1: clampX(x(p.t)), y1: y0, x2: clampX(x(tEnd)), y2: y1, stroke: C.ttl, 'stroke-width': 1.2, 'stroke-opacity': 0.5, 'pointer-events': 'none' }, g);
      }
      var endCol = s.end_how === 'expired' ? C.expire : s.end_how === 'deleted' ? C.deleted : s.end_how === 'end of run' ? null : C.lost;
      if (endCol && s.end <= view.t1) {
        var ex = x(s.end);
        el('rect', { x: ex - 1.5, y: top - 2, width: 3, height: hh + 4, fill: endCol, 'pointer-events': 'none' }, g);
      }
      var label = (s.owner || 'unknown owner') + ' \u00b7 ' + s.key;
      clipText(g, Math.max(s.start, view.t0), s.end, top + hh / 2 + 4, label, 'bar-text dark');
      if (endCol && s.end >= view.t0 && s.end <= view.t1) {
        // Say how the key ended: inside the span when there is room,
        // else in the gap before the next span on its row.
        var how = s.end_how + ' ' + fmtT(s.end);
        var need = how.length * 6.2 + 10;
        var inside = Math.min(x(s.end), LABEL_W + plotW) - Math.max(x(s.start), LABEL_W);
        var lx = null;
        if (inside > need + Math.min(label.length * 6.6 + 8, inside / 2)) {
          lx = x(s.end) - need;
        } else if (x(s.next_start) - x(s.end) > need && x(s.end) + need < LABEL_W + plotW) {
          lx = x(s.end) + 3;
        }
        if (lx !== null) {
          el('rect', { x: lx, y: top + 2, width: need - 3, height: hh - 4, rx: 2, fill: '#fff', 'fill-opacity': 0.9, 'pointer-events': 'none' }, g);
          svgText(g, lx + 4, top + hh / 2 + 4, how, 'mark-text', { fill: endCol });
        }
      }
    });
  }

  function drawHolds(g) {
    (D.holds || []).forEach(function (hd, hi) {
      if (hd.lane < 0) return;
      var L = layout[hd.lane];
      var col = clientColor(hd.client);
      var id = tip(function (t) { return holdTip(hd, t); });
      if (visible(hd.start, hd.end)) {
        bar(g, hd.start, hd.end, L.y + L.hold, 16, { fill: col, 'fill-opacity': 0.85, rx: 2, 'data-tip': id, 'class': 'hit' }, 2);
        (hd.no_lease || []).forEach(function (w) {
          if (!visible(w[0], w[1])) return;
          bar(g, w[0], w[1], L.y + L.hold, 16, { fill: 'url(#hatch-red)', stroke: C.red, 'stroke-width': 1.2, 'data-tip': id, 'class': 'hit' }, 2);
        });
        var label = 'holds ' + hd.key + (hd.release < 0 ? ' (never released)' : '');
        var nl = hd.no_lease || [];
        clipText(g, Math.max(hd.start, view.t0), nl.length ? nl[0][0] : hd.end, L.y + L.hold + 12, label, 'bar-text');
        if (nl.length) clipText(g, Math.max(nl[0][0], view.t0), nl[0][1], L.y + L.hold + 12, 'no lease on redis (key gone)', 'bar-text dark');
      }
      (hd.lease || []).forEach(function (w) {
        if (!visible(w[0], w[1])) return;
        bar(g, w[0], w[1], L.y + L.lease, 7, { fill: col, 'fill-opacity': 0.35, stroke: col, 'stroke-width': 0.8, 'data-tip': id, 'class': 'hit' }, 2);
      });
    });
  }

  function opColor(op) {
    var r = op.result || '';
    if (op['return'] < 0 || r.indexOf('error') === 0) return C.unknown;
    switch (op.kind) {
      case 'acquire': return r === 'ok' ? C.acqOK : C.acqFail;
      case 'release': return r === 'ok' ? C.release : C.relBad;
      case 'renew': return r === 'ok' ? C.renew : C.acqFail;
      default: return (r === 'exists' || r === 'rejected' || r.indexOf('soldout') === 0) ? C.resDim : C.res;
    }
  }
  function opLabel(op) {
    var s = op.kind + ' ' + op.key;
    if (op.value) s += ' = ' + op.value;
    s += op['return'] < 0 ? ' \u2192 ? (no reply)' : ' \u2192 ' + (op.result || '');
    return s;
  }

  function drawOps(g) {
    var lastPx = {}; // lane -> last pixel column drawn, to merge dense bursts
    D.ops.forEach(function (op, i) {
      var lane = D.op_lane[i];
      if (lane < 0) return;
      var end = opEnd(op);
      if (!visible(op.call, end)) return;
      var L = layout[lane];
      var x0 = x(op.call), x1 = x(end);
      var col = opColor(op);
      var small = x1 - x0 < 2;
      if (small) {
        var key = lane + ':' + col;
        var px = Math.round(x0);
        if (lastPx[key] === px) return;
        lastPx[key] = px;
      }
      var id = tip(function () { return opTip(op); });
      var attrs = { fill: col, 'data-tip': id, 'class': 'hit', rx: 1.5 };
      if (op['return'] < 0) { attrs['fill-opacity'] = 0.5; attrs.stroke = C.unknown; attrs['stroke-dasharray'] = '3 2'; }
      bar(g, op.call, end, L.y + L.ops, 14, attrs, 2);
      clipText(g, Math.max(op.call, view.t0), end, L.y + L.ops + 11, opLabel(op), 'bar-text');
    });
  }

  var MARK_LABEL = {
    promote: 'promoted', demote: 'demoted', 'master-down': 'master down', 'node-start': 'restarted',
    restart: 'restarted', discover: 'discover', crash: 'crash', 'node-crash': 'node down', fault: 'fault'
  };
  function markColor(e) {
    switch (e.kind) {
      case 'expire': return C.expire;
      case 'drop': case 'timeout': case 'crash': case 'node-crash': return C.red;
      case 'promote': case 'demote': case 'master-down': return '#8250df';
      case 'clock-jump': return '#bf3989';
      case 'replicate': return '#0969da';
      case 'retry': return C.unknown;
      default: return '#57606a';
    }
  }
  // isAnchor: the event of an anchor resolving, a mark (its fault is
  // drawn where it fired, by the fault's own event).
  function isAnchor(e) { return e.kind === 'fault' && (e.detail || '').indexOf('anchor: ') === 0; }
  function markLabel(e) {
    if (isAnchor(e) && e.fault) {
      var af = (D.header.faults || [])[e.fault - 1];
      var after = af && af.anchor ? (af.anchor.after_ms || 0) : 0;
      return 'fault #' + e.fault + (after ? ' due in ' + fmtDur(after * 1e6) : ' starts');
    }
    var lab = MARK_LABEL[e.kind] || '';
    if (e.kind === 'clock-jump') lab = 'clock ' + (e.dur_ns >= 0 ? '+' : '') + fmtDur(e.dur_ns);
    if (e.kind === 'fault') lab = (e.detail || 'fault').split(':')[0];
    return e.fault ? 'fault #' + e.fault + (lab ? ': ' + lab : '') : lab;
  }
  // faultText names scheduled fault id as it happened: an anchored fault
  // at the time it fired (fault_texts, from the trace's events).
  function faultText(id) {
    var said = (D.header.fault_texts || [])[id - 1];
    if (said) return '#' + id + ' ' + said;
    var f = (D.header.faults || [])[id - 1];
    return '#' + id + (f ? ' ' + f.kind + ' on ' + f.target + (f.anchor ? ' (anchored)' : ' at ' + fmtDur(f.at_ms * 1e6)) +
      (f.dur_ms ? ' for ' + fmtDur(f.dur_ms * 1e6) : '') : '');
  }

  function drawEvents(g) {
    var ticks = {}; // lane -> pixel -> event index (the most telling one)
    var marks = {}; // lane -> pixel -> drawn
    function prio(e) {
      if (e.change) return 3;
      if (e.kind === 'expire') return 3;
      var a = (e.args && e.args[0] || '').toUpperCase();
      return (a === 'GET' || a === 'SELECT' || a === 'EXISTS' || a === 'TTL' || a === 'PTTL') ? 1 : 2;
    }
    D.events.forEach(function (e, i) {
      var lane = D.event_lane[i];
      if (lane < 0 || e.t < view.t0 || e.t > view.t1) return;
      var L = layout[lane];
      var kind = D.lanes[lane].kind;
      if (e.kind === 'cmd' || e.kind === 'service' || (kind !== 'thread' && e.kind === 'expire')) {
        var px = Math.round(x(e.t));
        var m = ticks[lane] || (ticks[lane] = {});
        if (m[px] === undefined || prio(D.events[m[px]]) < prio(e)) m[px] = i;
        return;
      }
      if (SHADE_KINDS[e.kind] || e.kind === 'thread' || (e.kind === 'fault' && e.dur_ns > 0 && !isAnchor(e))) return;
      var mx = x(e.t);
      var mp = marks[lane] || (marks[lane] = {});
      if (mp[Math.round(mx)]) return; // one mark per pixel column and lane
      mp[Math.round(mx)] = true;
      var col = markColor(e);
      var my = L.y + L.fault;
      var id = tip(function () { return eventTip(i); });
      var mh = kind === 'thread' ? 13 : L.h - 4;
      el('rect', { x: mx - 1, y: my, width: 2, height: mh, fill: col, 'data-tip': id, 'class': 'hit' }, g);
      el('path', { d: 'M' + (mx - 4) + ' ' + my + 'h8l-4 5z', fill: col, 'data-tip': id, 'class': 'hit' }, g);
      var lab = markLabel(e);
      if (lab) svgText(g, mx + 5, my + 8, lab, 'mark-text');
    });
    Object.keys(ticks).forEach(function (lane) {
      var L = layout[lane];
      var isNode = D.lanes[lane].kind === 'node';
      var ty = isNode ? L.y + L.h - 12 : L.y + L.ticks, th = isNode ? 9 : 12;
      var m = ticks[lane];
      Object.keys(m).forEach(function (px) {
        var i = m[px], e = D.events[i];
        var col = e.kind === 'expire' || e.change === 'expired' ? C.expire : e.change === 'created' ? C.created :
          e.change === 'deleted' ? C.deleted : e.change === 'lost' ? C.lost : prio(e) === 1 ? '#d0d7de' :
          e.kind === 'service' ? C.write : '#aeb7c1';
        var id = tip(function () { return eventTip(i); });
        el('rect', { x: +px - 1, y: ty, width: 2, height: th, fill: col, 'data-tip': id, 'class': 'hit' }, g);
      });
    });
  }

  function evPos(i) {
    var e = D.events[i];
    var lane = D.event_lane[i];
    if (lane < 0) return null;
    var L = layout[lane];
    var kind = D.lanes[lane].kind;
    var y = L.y + L.h / 2;
    if (kind === 'node') y = L.y + L.h - 8;
    else if (kind === 'thread') y = L.y + L.fault + 6;
    return { x: x(e.t), y: y };
  }

  function drawViolations(g) {
    var placed = {}; // y -> x of the citation circles drawn there
    D.violations.forEach(function (v, vi) {
      var strong = selectedViolation < 0 || selectedViolation === vi;
      var op = strong ? 1 : 0.35;
      var a = v.at_ns, b = Math.max(v.until_ns, v.at_ns);
      var lanes = v.lanes.slice();
      if (visible(a, b)) {
        var ys = lanes.map(function (l) { return layout[l].y; });
        var ye = lanes.map(function (l) { return layout[l].y + layout[l].h; });
        lanes.forEach(function (l) {
          var L = layout[l];
          bar(g, a, b, L.y + 1, L.h - 2, { fill: C.red, 'fill-opacity': 0.08 * op, stroke: 'none', 'pointer-events': 'none' }, 3);
        });
        if (lanes.length) {
          var top = Math.min.apply(null, ys), bottom = Math.max.apply(null, ye);
          el('line', { x1: x(a), y1: top, x2: x(a), y2: bottom, stroke: C.red, 'stroke-width': 1.5, 'stroke-dasharray': '5 3', 'stroke-opacity': op, 'pointer-events': 'none' }, g);
          if (b > a) el('line', { x1: x(b), y1: top, x2: x(b), y2: bottom, stroke: C.red, 'stroke-width': 1, 'stroke-dasharray': '2 3', 'stroke-opacity': op, 'pointer-events': 'none' }, g);
          var vx = x(a);
          if (vx >= LABEL_W && vx <= LABEL_W + plotW) {
            el('path', { d: 'M' + vx + ' 30l-5 -8h10z', fill: C.red, 'fill-opacity': op }, axisSvg);
            svgText(axisSvg, vx + 6, 27, 'V' + (vi + 1), 'v-text', { 'fill-opacity': op });
          }
        }
      }
      v.holds.forEach(function (hi) {
        var hd = D.holds[hi];
        if (!visible(hd.start, hd.end)) return;
        var L = layout[hd.lane];
        bar(g, hd.start, hd.end, L.y + L.hold - 2, 20, { fill: 'none', stroke: C.red, 'stroke-width': 2.2, 'stroke-opacity': op, rx: 3, 'pointer-events': 'none' }, 3);
      });
      v.ops.forEach(function (oi) {
        var o = D.ops[oi], lane = D.op_lane[oi];
        if (lane < 0 || !visible(o.call, opEnd(o))) return;
        var L = layout[lane];
        bar(g, o.call, opEnd(o), L.y + L.ops - 2, 18, { fill: 'none', stroke: C.red, 'stroke-width': 2.2, 'stroke-opacity': op, rx: 3, 'pointer-events': 'none' }, 3);
      });
      (v.events || []).forEach(function (ei, n) {
        if (ei < 0 || ei >= D.events.length) return;
        var e = D.events[ei];
        if (e.t < view.t0 || e.t > view.t1) return;
        var p = evPos(ei);
        if (!p) return;
        // Citations closer than a circle apart move right, with a leader
        // to their true time.
        var cx = p.x, key = Math.round(p.y);
        var row = placed[key] || (placed[key] = []);
        for (var k = 0; k < row.length; k++) {
          if (Math.abs(row[k] - cx) < 16) { cx = row[k] + 16; k = -1; }
        }
        row.push(cx);
        if (cx !== p.x) {
          el('line', { x1: p.x, y1: p.y, x2: cx, y2: p.y, stroke: C.red, 'stroke-width': 1.5, 'stroke-opacity': op, 'pointer-events': 'none' }, g);
          el('circle', { cx: p.x, cy: p.y, r: 2, fill: C.red, 'fill-opacity': op, 'pointer-events': 'none' }, g);
        }
        p = { x: cx, y: p.y };
        var id = tip(function () { return eventTip(ei, v, n); });
        var c = el('circle', { cx: p.x, cy: p.y, r: 7.5, fill: '#fff', stroke: C.red, 'stroke-width': 2, 'fill-opacity': 0.92, 'stroke-opacity': op, 'data-tip': id, 'class': 'hit' }, g);
        if (ei === flashEv) c.setAttribute('class', 'hit flash');
        svgText(g, p.x, p.y + 3.5, String(n + 1), 'v-num', { 'text-anchor': 'middle', 'fill-opacity': op });
      });
    });
  }

  // ---------- tooltips ----------
  function tipContent(title, rows, raw, note) {
    return { title: title, rows: rows, raw: raw, note: note };
  }
  function opTip(op) {
    var rows = [['client', op.client], ['call', fmtAbs(op.call)]];
    if (op['return'] >= 0) {
      rows.push(['return', fmtAbs(op['return'])], ['took', fmtDur(op['return'] - op.call)]);
    } else {
      rows.push(['return', 'never (no reply before the end of the run)']);
    }
    return tipContent(opLabel(op), rows, op);
  }
  function eventTip(i, v, n) {
    var e = D.events[i];
    var rows = [['event', '#' + i], ['time', fmtAbs(e.t)], ['party', e.party]];
    if (e.client) rows.push(['client', e.client]);
    if (e.key) rows.push(['key', e.key]);
    if (e.change) rows.push(['key change', e.change]);
    if (e.dur_ns) rows.push(['duration', fmtDur(e.dur_ns) + ' (until ' + fmtAbs(e.t + e.dur_ns) + ')']);
    if (e.fault) rows.push(['fault', faultText(e.fault)]);
    if (e.args && e.args.length && /^sha1:/.test(e.args[1] || '')) {
      var sha = e.args[1].slice(5);
      (D.scripts || []).forEach(function (s) { if (s.sha1 === sha) rows.push(['script', s.body]); });
    }
    var raw = {};
    for (var k in e) raw[k] = e[k];
    raw.index = i;
    return tipContent(evText(e), rows, raw, v ? 'cited by V' + (D.violations.indexOf(v) + 1) + ' (' + (n + 1) + ')' : null);
  }
  function holdTip(hd, t) {
    var acq = D.ops[hd.acquire], rel = hd.release >= 0 ? D.ops[hd.release] : null;
    var rows = [['client', hd.client], ['key', hd.key], ['from', fmtAbs(hd.start) + ' (acquire returned ok)'],
      ['to', rel ? fmtAbs(hd.end) + ' (release called)' : 'never released'], ['believed held', fmtDur(hd.end - hd.start)]];
    (hd.lease || []).forEach(function (w, i) {
      rows.push([i ? '' : 'lease on redis', fmtAbs(w[0]) + ' \u2192 ' + fmtAbs(w[1]) + ' (' + fmtDur(w[1] - w[0]) + ')']);
    });
    if (!(hd.lease || []).length) rows.push(['lease on redis', 'none found']);
    (hd.no_lease || []).forEach(function (w, i) {
      rows.push([i ? '' : 'held without lease', fmtAbs(w[0]) + ' \u2192 ' + fmtAbs(w[1]) + ' (' + fmtDur(w[1] - w[0]) + ')']);
    });
    if (hd.quorum > 1) rows.push(['quorum', hd.quorum + ' masters']);
    hd.spans.forEach(function (si) {
      var s = D.keys[si];
      rows.push(['key on ' + s.node, fmtAbs(s.start) + ' \u2192 ' + fmtAbs(s.end) + ' (' + s.end_how + ')']);
    });
    return tipContent(hd.client + ' holds ' + hd.key, rows, { acquire: acq, release: rel });
  }
  function keyTip(s, t) {
    var rows = [['node', s.node], ['owner', s.owner || 'unknown'], ['created', fmtAbs(s.start) + ' (event #' + s.start_ev + ')'],
      ['ended', s.end_how === 'end of run' ? 'still there at the end of the run' : fmtAbs(s.end) + ' ' + s.end_how + (s.end_ev >= 0 ? ' (event #' + s.end_ev + ')' : '')],
      ['lifetime', fmtDur(s.end - s.start)]];
    if (t !== undefined) {
      var ttl = ttlAt(s, t);
      if (ttl) rows.push(['TTL at ' + fmtT(t), ttl]);
    }
    var raw = { created: D.events[s.start_ev] };
    if (s.end_ev >= 0) raw.ended = D.events[s.end_ev];
    return tipContent(s.key + ' on ' + s.node, rows, raw);
  }
  function shadeTip(s) {
    var rows = [['lane', D.lanes[s.lane].name], ['from', fmtAbs(s.start)], ['to', fmtAbs(s.end)], ['duration', fmtDur(s.end - s.start)]];
    return tipContent(s.label, rows, D.events[s.ev]);
  }

  var tipEl;
  function showTip(content, cx, cy) {
    tipEl.textContent = '';
    if (pinned) {
      var close = h('button', 'close', '\u00d7', tipEl);
      close.type = 'button';
      close.title = 'close (Esc)';
      close.addEventListener('click', unpin);
    }
    h('h3', null, content.title, tipEl);
    var table = h('table', null, null, tipEl);
    content.rows.forEach(function (r) {
      var tr = h('tr', null, null, table);
      h('td', null, r[0], tr);
      h('td', null, r[1], tr);
    });
    if (content.note) h('div', 'tip-note', content.note, tipEl);
    if (content.raw) h('pre', null, JSON.stringify(content.raw, null, 1), tipEl);
    tipEl.hidden = false;
    var w = tipEl.offsetWidth, hh = tipEl.offsetHeight;
    var left = cx + 14, top = cy + 14;
    if (left + w > window.innerWidth - 4) left = Math.max(4, cx - w - 14);
    if (top + hh > window.innerHeight - 4) top = Math.max(4, cy - hh - 14);
    tipEl.style.left = left + 'px';
    tipEl.style.top = top + 'px';
  }
  function hideTip() { if (!pinned) tipEl.hidden = true; }
  function unpin() { pinned = false; tipEl.classList.remove('pinned'); tipEl.hidden = true; }

  // ---------- interaction ----------
  function clampView() {
    var pad = D.end_ns * 0.02;
    var minSpan = 1000;
    var span = view.t1 - view.t0;
    var maxSpan = D.end_ns + 2 * pad;
    if (span > maxSpan) { span = maxSpan; }
    if (span < minSpan) { var mid = (view.t0 + view.t1) / 2; view.t0 = mid - minSpan / 2; view.t1 = mid + minSpan / 2; span = minSpan; }
    if (view.t0 < -pad) { view.t0 = -pad; }
    view.t1 = view.t0 + span;
    if (view.t1 > D.end_ns + pad) { view.t1 = D.end_ns + pad; view.t0 = view.t1 - span; }
  }
  function zoomAt(factor, t) {
    view.t0 = t - (t - view.t0) * factor;
    view.t1 = t + (view.t1 - t) * factor;
    clampView();
    schedule();
  }
  function fit() {
    var pad = D.end_ns * 0.015;
    view.t0 = -pad;
    view.t1 = D.end_ns + pad;
    clampView();
    schedule();
  }
  function showWindow(a, b) {
    var pad = Math.max((b - a) * 0.08, 1000);
    view.t0 = a - pad;
    view.t1 = b + pad;
    clampView();
    schedule();
  }
  function updateZoomInfo() {
    var info = document.getElementById('zoom-info');
    var z = (D.end_ns * 1.03) / (view.t1 - view.t0);
    info.textContent = 'showing ' + fmtT(Math.max(view.t0, 0)) + ' \u2013 ' + fmtT(view.t1) + ' (' + fmtDur(view.t1 - view.t0) + ', \u00d7' + (z < 10 ? z.toFixed(1) : Math.round(z)) + ')';
  }

  var cursorG = null;
  function drawCursor(m) {
    if (cursorG && cursorG.parentNode) cursorG.parentNode.removeChild(cursorG);
    var oldA = document.getElementById('ax-cursor');
    if (oldA) oldA.parentNode.removeChild(oldA);
    cursorG = null;
    if (!m || m.x < LABEL_W || m.x > LABEL_W + plotW) return;
    cursorG = el('line', { x1: m.x, y1: 0, x2: m.x, y2: totalH, 'class': 'cursor-line' }, lanesSvg);
    var ag = el('g', { id: 'ax-cursor' }, axisSvg);
    var label = fmtT(tAt(m.x));
    var w = label.length * 6.4 + 10;
    el('rect', { x: m.x - w / 2, y: 4, width: w, height: 16, rx: 3, fill: '#424a53' }, ag);
    svgText(ag, m.x, 15.5, label, 'ax-cursor', { 'text-anchor': 'middle' });
  }

  function svgPoint(ev) {
    var r = lanesSvg.getBoundingClientRect();
    return { x: ev.clientX - r.left, y: ev.clientY - r.top };
  }

  function setupInteraction() {
    var drag = null;
    wrap.addEventListener('wheel', function (ev) {
      var p = svgPoint(ev);
      if (p.x < LABEL_W) return; // let the label column scroll the page
      ev.preventDefault();
      var unit = ev.deltaMode === 1 ? 20 : ev.deltaMode === 2 ? 400 : 1;
      var dx = ev.deltaX * unit, dy = ev.deltaY * unit;
      if (ev.shiftKey || Math.abs(dx) > Math.abs(dy)) {
        var d = (ev.shiftKey && !dx ? dy : dx) / plotW * (view.t1 - view.t0);
        view.t0 += d; view.t1 += d;
        clampView();
        schedule();
        return;
      }
      zoomAt(Math.exp(Math.max(-1, Math.min(1, dy * 0.0025))), tAt(p.x));
    }, { passive: false });
    wrap.addEventListener('mousedown', function (ev) {
      if (ev.button !== 0) return;
      var p = svgPoint(ev);
      if (p.x < LABEL_W) return;
      drag = { x: ev.clientX, t0: view.t0, t1: view.t1, moved: false };
    });
    window.addEventListener('mousemove', function (ev) {
      if (drag) {
        var dx = ev.clientX - drag.x;
        if (Math.abs(dx) > 3) drag.moved = true;
        if (drag.moved) {
          wrap.classList.add('dragging');
          var d = -dx / plotW * (drag.t1 - drag.t0);
          view.t0 = drag.t0 + d; view.t1 = drag.t1 + d;
          clampView();
          schedule();
          return;
        }
      }
    });
    window.addEventListener('mouseup', function (ev) {
      if (!drag) return;
      var wasDrag = drag.moved;
      drag = null;
      wrap.classList.remove('dragging');
      if (wasDrag) return;
      var t = ev.target && ev.target.getAttribute && ev.target.getAttribute('data-tip');
      if (t !== null && t !== undefined && tips[+t]) {
        pinned = true;
        tipEl.classList.add('pinned');
        var p = svgPoint(ev);
        showTip(tips[+t](tAt(p.x)), ev.clientX, ev.clientY);
      } else {
        unpin();
      }
    });
    lanesSvg.addEventListener('mousemove', function (ev) {
      var p = svgPoint(ev);
      lastMouse = p;
      drawCursor(p);
      if (pinned || drag && drag.moved) return;
      var t = ev.target.getAttribute && ev.target.getAttribute('data-tip');
      if (t !== null && t !== undefined && tips[+t]) {
        showTip(tips[+t](tAt(p.x)), ev.clientX, ev.clientY);
      } else {
        hideTip();
      }
    });
    lanesSvg.addEventListener('mouseleave', function () { lastMouse = null; drawCursor(null); hideTip(); });
    document.getElementById('zoom-in').addEventListener('click', function () { zoomAt(0.5, (view.t0 + view.t1) / 2); });
    document.getElementById('zoom-out').addEventListener('click', function () { zoomAt(2, (view.t0 + view.t1) / 2); });
    document.getElementById('zoom-fit').addEventListener('click', function () { selectViolation(-1); fit(); });
    window.addEventListener('keydown', function (ev) {
      if (ev.target && /INPUT|TEXTAREA|SELECT/.test(ev.target.tagName)) return;
      var mid = (view.t0 + view.t1) / 2, span = view.t1 - view.t0;
      switch (ev.key) {
        case '+': case '=': zoomAt(0.5, mid); break;
        case '-': case '_': zoomAt(2, mid); break;
        case '0': fit(); break;
        case 'ArrowLeft': view.t0 -= span * 0.2; view.t1 -= span * 0.2; clampView(); schedule(); break;
        case 'ArrowRight': view.t0 += span * 0.2; view.t1 += span * 0.2; clampView(); schedule(); break;
        case 'Escape': unpin(); break;
        default: return;
      }
    });
    window.addEventListener('resize', schedule);
  }

  // ---------- header, violations, legend, tabs ----------
  function header() {
    var hd = D.header;
    var verdict = document.getElementById('verdict');
    verdict.textContent = (hd.verdict || '?').toUpperCase();
    verdict.classList.add(hd.verdict);
    document.getElementById('scenario').textContent = hd.protocol + ' / ' + hd.workload + ', seed ' + hd.seed + ', ' + hd.clients + ' clients';
    var meta = document.getElementById('meta');
    function part(label, text) {
      if (meta.childNodes.length) meta.appendChild(document.createTextNode(' \u00b7 '));
      if (label) h('b', null, label + ' ', meta);
      meta.appendChild(document.createTextNode(text));
    }
    var faults = (hd.faults || []).map(function (f, i) { return faultText(i + 1); });
    part('faults:', faults.length ? (faults.length > 4 ? faults.slice(0, 4).join('; ') + '; \u2026 (' + faults.length + ')' : faults.join('; ')) : 'none');
    if (hd.lease_ms) part('lease:', fmtDur(hd.lease_ms * 1e6));
    var dm = hd.damage || {};
    var dmg = [];
    Object.keys(dm).forEach(function (k) {
      if (typeof dm[k] === 'number' && dm[k] > 0) dmg.push(dm[k] + ' ' + k.replace(/_/g, ' '));
    });
    part('damage:', dmg.length ? dmg.join(', ') : 'none');
    part('', hd.stats.events + ' events, ' + hd.stats.redis_commands + ' redis commands, ' + fmtDur(hd.stats.sim_ns) + ' simulated');
    part('trace', (hd.trace_sha256 || '').slice(0, 16));
    if (hd.partial) part('partial:', hd.partial);

    var det = document.getElementById('scenario-details');
    h('pre', null, JSON.stringify({ faults: hd.faults, checked: hd.checked, damage: hd.damage, stats: hd.stats, trace_sha256: hd.trace_sha256 }, null, 1), det);
    (D.scripts || []).forEach(function (s) {
      h('div', null, 'script sha1:' + s.sha1, det);
      h('pre', null, s.body, det);
    });
  }

  function selectViolation(vi) {
    selectedViolation = vi;
    var cards = document.querySelectorAll('.vcard');
    for (var i = 0; i < cards.length; i++) cards[i].classList.toggle('selected', i === vi);
    schedule();
  }

  function violations() {
    var box = document.getElementById('violations');
    if (!D.violations.length) {
      h('div', 'noviolation', D.header.verdict === 'unknown' ?
        'The checker ran out of time: no violation found, none ruled out.' : 'No violation: every history linearized.', box);
      return;
    }
    D.violations.forEach(function (v, vi) {
      if (vi === 0 || D.violations[vi - 1].heading !== v.heading) h('h3', 'vgroup', v.heading, box);
      var card = h('div', 'vcard', null, box);
      card.id = 'violation-' + (vi + 1);
      var head = h('div', 'vhead', null, card);
      h('span', 'vtag', 'V' + (vi + 1), head);
      h('span', 'vprop', v.property, head);
      h('span', 'vcause', v.cause + (v.reason ? ' (' + v.reason + ')' : ''), head);
      var where = 'on ' + v.key + ', ' + (v.clients || []).join(' and ') + ', at t=' + fmtAbs(v.at_ns);
      if (v.until_ns > v.at_ns) where += ' until ' + fmtAbs(v.until_ns);
      h('span', 'vwhere', where, head);
      var btn = h('button', 'vbtn', 'show on timeline', head);
      btn.type = 'button';
      btn.addEventListener('click', function () {
        selectViolation(vi);
        showWindow(v.start, v.end);
        if (history.replaceState) history.replaceState(null, '', '#v' + (vi + 1));
        document.getElementById('timeline').scrollIntoView({ block: 'nearest' });
      });
      h('p', 'vexpl', v.explanation, card);
      if ((v.events || []).length) {
        var ul = h('ul', 'vevents', null, card);
        v.events.forEach(function (ei, n) {
          if (ei < 0 || ei >= D.events.length) return;
          var e = D.events[ei];
          var li = h('li', null, null, ul);
          h('span', 'vnum', String(n + 1), li);
          li.appendChild(document.createTextNode('event #' + ei + ' at ' + fmtAbs(e.t) + ': ' + evText(e)));
          li.title = 'show this event on the timeline';
          li.addEventListener('click', function () {
            selectViolation(vi);
            flashEv = ei;
            var span = Math.min(view.t1 - view.t0, Math.max(v.end - v.start, 1e6) * 1.2);
            view.t0 = e.t - span / 2; view.t1 = e.t + span / 2;
            clampView();
            schedule();
            setTimeout(function () { flashEv = -1; }, 3000);
          });
        });
      }
    });
  }

  function legend() {
    var box = document.getElementById('legend');
    function item(label, draw) {
      var s = h('span', null, null, box);
      var svg = el('svg', { width: 26, height: 14, viewBox: '0 0 26 14' }, s);
      draw(svg);
      s.appendChild(document.createTextNode(label));
    }
    var c0 = PALETTE[0];
    item('acquire ok', function (s) { el('rect', { x: 2, y: 3, width: 6, height: 8, fill: C.acqOK }, s); });
    item('acquire refused', function (s) { el('rect', { x: 2, y: 3, width: 4, height: 8, fill: C.acqFail }, s); el('rect', { x: 10, y: 3, width: 4, height: 8, fill: C.acqFail }, s); });
    item('release', function (s) { el('rect', { x: 2, y: 3, width: 8, height: 8, fill: C.release }, s); });
    item('release not owner', function (s) { el('rect', { x: 2, y: 3, width: 8, height: 8, fill: C.relBad }, s); });
    item('renew', function (s) { el('rect', { x: 2, y: 3, width: 8, height: 8, fill: C.renew }, s); });
    item('resource op (insert, buy, add, write)', function (s) { el('rect', { x: 1, y: 3, width: 24, height: 8, fill: C.res, rx: 1.5 }, s); });
    item('no reply / error', function (s) { el('rect', { x: 1, y: 3, width: 24, height: 8, fill: C.unknown, 'fill-opacity': 0.5, stroke: C.unknown, 'stroke-dasharray': '3 2' }, s); });
    item('hold (believed held)', function (s) { el('rect', { x: 1, y: 2, width: 24, height: 10, fill: c0, 'fill-opacity': 0.85, rx: 2 }, s); });
    item('held without lease', function (s) {
      var p = el('pattern', { id: 'lg-hatch', width: 6, height: 6, patternUnits: 'userSpaceOnUse', patternTransform: 'rotate(45)' }, s);
      el('rect', { width: 6, height: 6, fill: '#ffebe9' }, p);
      el('line', { x1: 0, y1: 0, x2: 0, y2: 6, stroke: C.red, 'stroke-width': 3 }, p);
      el('rect', { x: 1, y: 2, width: 24, height: 10, fill: 'url(#lg-hatch)', stroke: C.red }, s);
    });
    item('lease (key alive on redis)', function (s) { el('rect', { x: 1, y: 4, width: 24, height: 6, fill: c0, 'fill-opacity': 0.35, stroke: c0, 'stroke-width': 0.8 }, s); });
    item('key on node: owner color, TTL line', function (s) {
      el('rect', { x: 1, y: 1, width: 24, height: 12, fill: c0, 'fill-opacity': 0.22, stroke: c0 }, s);
      el('line', { x1: 1, y1: 2, x2: 25, y2: 12, stroke: C.ttl, 'stroke-width': 1.3 }, s);
    });
    item('expired / deleted / lost', function (s) {
      el('rect', { x: 3, y: 1, width: 3, height: 12, fill: C.expire }, s);
      el('rect', { x: 11, y: 1, width: 3, height: 12, fill: C.deleted }, s);
      el('rect', { x: 19, y: 1, width: 3, height: 12, fill: C.lost }, s);
    });
    item('GC pause', function (s) {
      var p = el('pattern', { id: 'lg-pause', width: 8, height: 8, patternUnits: 'userSpaceOnUse', patternTransform: 'rotate(-45)' }, s);
      el('rect', { width: 8, height: 8, fill: 'rgba(101,109,118,0.10)' }, p);
      el('line', { x1: 0, y1: 0, x2: 0, y2: 8, stroke: 'rgba(101,109,118,0.35)', 'stroke-width': 2 }, p);
      el('rect', { x: 1, y: 1, width: 24, height: 12, fill: 'url(#lg-pause)', stroke: 'rgba(87,96,106,0.55)', 'stroke-dasharray': '4 3' }, s);
    });
    item('partition', function (s) {
      var p = el('pattern', { id: 'lg-part', width: 8, height: 8, patternUnits: 'userSpaceOnUse' }, s);
      el('rect', { width: 8, height: 8, fill: 'rgba(130,80,223,0.08)' }, p);
      el('circle', { cx: 4, cy: 4, r: 1.3, fill: 'rgba(130,80,223,0.55)' }, p);
      el('rect', { x: 1, y: 1, width: 24, height: 12, fill: 'url(#lg-part)', stroke: 'rgba(130,80,223,0.6)', 'stroke-dasharray': '4 3' }, s);
    });
    item('other fault (replication lag, ...)', function (s) { el('rect', { x: 1, y: 3, width: 24, height: 8, fill: '#bc4c00', rx: 2 }, s); });
    item('crashed / node down', function (s) { el('rect', { x: 1, y: 1, width: 24, height: 12, fill: 'rgba(36,41,47,0.25)', stroke: 'rgba(87,96,106,0.55)', 'stroke-dasharray': '4 3' }, s); });
    item('event (expiry, replication, promotion, clock jump, drop, ...)', function (s) {
      el('rect', { x: 12, y: 1, width: 2, height: 12, fill: '#8250df' }, s);
      el('path', { d: 'M9 1h8l-4 5z', fill: '#8250df' }, s);
    });
    item('violation: overlap, holds, cited events', function (s) {
      el('rect', { x: 1, y: 1, width: 24, height: 12, fill: C.red, 'fill-opacity': 0.1, stroke: C.red, 'stroke-width': 1.5, rx: 2 }, s);
      el('circle', { cx: 13, cy: 7, r: 4.5, fill: '#fff', stroke: C.red, 'stroke-width': 1.5 }, s);
    });
  }

  function tabs() {
    var buttons = document.querySelectorAll('.tab');
    var linLoaded = false;
    function open(name) {
      for (var i = 0; i < buttons.length; i++) {
        var on = buttons[i].getAttribute('data-tab') === name;
        buttons[i].classList.toggle('active', on);
        buttons[i].setAttribute('aria-selected', on ? 'true' : 'false');
      }
      document.getElementById('tab-timeline').hidden = name !== 'timeline';
      document.getElementById('tab-lin').hidden = name !== 'lin';
      if (name === 'lin' && !linLoaded) {
        // porcupine's page measures text as it lays out: load it only
        // once its panel is visible.
        linLoaded = true;
        var tpl = document.getElementById('lin-template');
        document.getElementById('lin-host').appendChild(document.importNode(tpl.content, true));
      }
      if (name === 'timeline') schedule();
      // Remember the tab in the address (not as an element's id: the
      // browser would scroll to it).
      if (history.replaceState && !/^#selftest/.test(location.hash)) {
        history.replaceState(null, '', name === 'lin' ? '#linearization' : location.pathname + location.search);
      }
    }
    for (var i = 0; i < buttons.length; i++) {
      buttons[i].addEventListener('click', function (ev) { open(ev.currentTarget.getAttribute('data-tab')); });
    }
    if (location.hash === '#linearization') open('lin');
  }

  function main() {
    D = JSON.parse(document.getElementById('locksim-data').textContent);
    D.lanes.forEach(function (l, i) { if (l.kind === 'thread' && laneByName[l.name] === undefined) laneByName[l.name] = i; });
    D.violations.forEach(function (v) { (v.events || []).forEach(function (ei) { cited[ei] = true; }); });
    var rowEnds = {};
    (D.keys || []).forEach(function (s) {
      (s.ttl || []).forEach(function (p) { if (p.ttl > maxTTL) maxTTL = p.ttl; });
      s.next_start = D.end_ns * 2;
    });
    (D.keys || []).slice().sort(function (a, b) { return b.start - a.start; }).forEach(function (s) {
      var k = s.lane + ':' + s.row;
      if (rowEnds[k] !== undefined) s.next_start = rowEnds[k];
      rowEnds[k] = s.start;
    });
    lanesSvg = document.getElementById('lanes');
    axisSvg = document.getElementById('axis');
    wrap = document.getElementById('lanes-wrap');
    tipEl = document.getElementById('tooltip');
    header();
    violations();
    legend();
    computeLayout();
    tabs();
    setupInteraction();
    fit();
    // #v2 opens on violation 2; #t=59.5,66 on that window (seconds).
    var m = /^#v(\d+)$/.exec(location.hash);
    if (m && D.violations[+m[1] - 1]) {
      var v = D.violations[+m[1] - 1];
      selectViolation(+m[1] - 1);
      showWindow(v.start, v.end);
    }
    m = /^#t=([0-9.]+),([0-9.]+)$/.exec(location.hash);
    if (m && +m[2] > +m[1]) {
      view.t0 = +m[1] * 1e9;
      view.t1 = +m[2] * 1e9;
      clampView();
    }
    var t0 = performance.now();
    render();
    renderMs = performance.now() - t0;
    if (raf) { cancelAnimationFrame(raf); raf = 0; }
    if (document.body.getAttribute('data-locksim-status') !== 'error') {
      document.body.setAttribute('data-locksim-status', 'ok');
      statusEl.textContent = 'locksim-view: ok; lanes=' + D.lanes.length + '; events=' + D.events.length +
        '; ops=' + D.ops.length + '; violations=' + D.violations.length + '; render_ms=' + Math.round(renderMs);
    }
  }

  // selfTest exercises the page the way a person would (hover, zoom, tabs)
  // when the URL ends in #selftest; the browser test reads its verdict
  // from the DOM.
  function selfTest(keepTip) {
    var fails = [];
    function check(ok, what) { if (!ok) fails.push(what); }
    var before = document.getElementById('zoom-info').textContent;
    var r = wrap.getBoundingClientRect();
    var wheel = new WheelEvent('wheel', { deltaY: -300, clientX: r.left + LABEL_W + plotW / 2, clientY: r.top + 40, bubbles: true, cancelable: true });
    wrap.dispatchEvent(wheel);
    if (raf) { cancelAnimationFrame(raf); raf = 0; }
    render();
    check(document.getElementById('zoom-info').textContent !== before, 'wheel zoom');
    document.getElementById('zoom-fit').click();
    if (raf) { cancelAnimationFrame(raf); raf = 0; }
    render();
    document.getElementById('tab-btn-lin').click();
    check(!document.getElementById('tab-lin').hidden, 'linearization tab opens');
    check(document.querySelector('#lin-host iframe, #lin-host .lin-missing') !== null, 'linearization content');
    document.getElementById('tab-btn-timeline').click();
    if (raf) { cancelAnimationFrame(raf); raf = 0; }
    render();
    var hovered = 0;
    var target = document.querySelector('#lanes rect[data-tip][fill-opacity="0.85"]') || document.querySelector('#lanes [data-tip]');
    if (target) {
      var tr = target.getBoundingClientRect();
      target.dispatchEvent(new MouseEvent('mousemove', { clientX: tr.left + Math.min(tr.width / 3, 200), clientY: tr.top + tr.height / 2, bubbles: true }));
      hovered = tipEl.hidden ? 0 : tipEl.textContent.length;
    }
    check(!target || hovered > 0, 'hover tooltip');
    if (!keepTip) {
      hideTip();
      lastMouse = null;
      drawCursor(null);
    }
    var line = document.createElement('div');
    line.textContent = fails.length ? 'locksim-selftest: fail: ' + fails.join(', ') : 'locksim-selftest: ok';
    statusEl.appendChild(line);
  }

  try {
    main();
    // #selftest-hover leaves the tooltip it opened on screen.
    if (location.hash === '#selftest' || location.hash === '#selftest-hover') selfTest(location.hash === '#selftest-hover');
  } catch (e) {
    reportError(String(e && e.stack || e));
  }
})();
