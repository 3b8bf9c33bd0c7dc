/* ryvem graph export — the page's only script (no third-party code; MIT, part of ryvem).
 *
 * A force-directed view of the embedded graph on one <canvas>: a velocity-Verlet
 * simulation in the style of d3-force (link springs, Barnes–Hut many-body repulsion,
 * gravity toward the centre, grid-bucketed collision), seeded so the same data always
 * starts from the same layout. Work per animation frame is capped by a time budget, so a
 * 10,000-node graph stays responsive while it settles.
 *
 * Test hook (read-only): window.__ryvem — see the README section "HTML export".
 */
(function () {
  "use strict";

  var DATA = JSON.parse(document.getElementById("ryvem-data").textContent);
  var $ = function (id) { return document.getElementById(id); };

  // ---- seeded randomness -----------------------------------------------------------
  function fnv1a(str) {
    var h = 0x811c9dc5;
    for (var i = 0; i < str.length; i++) {
      h ^= str.charCodeAt(i);
      h = Math.imul(h, 0x01000193);
    }
    h ^= h >>> 16; h = Math.imul(h, 0x85ebca6b); // murmur3's finaliser spreads near-equal names
    h ^= h >>> 13; h = Math.imul(h, 0xc2b2ae35);
    h ^= h >>> 16;
    return h >>> 0;
  }
  function mulberry32(seed) {
    return function () {
      seed = (seed + 0x6d2b79f5) | 0;
      var t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
      t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
      return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
    };
  }
  var rand = mulberry32(0x5eed);
  function jiggle() { return (rand() - 0.5) * 1e-6; }

  // ---- the model -------------------------------------------------------------------
  var SUPERSEDES = "supersedes";
  var nodes = DATA.nodes.map(function (n) {
    return {
      id: n.id, e: n.e, k: n.k, s: n.s, t: n.t, key: n.key, h: n.h || "", d: n.d || [],
      f: n.f, u: n.u || null, sb: n.sb || null, sp: n.sp || null, r: n.r == null ? null : n.r,
      current: !n.u, x: NaN, y: NaN, vx: 0, vy: 0, fx: null, fy: null, rad: 4, deg: 0,
      vis: false, rank: 0, text: null
    };
  });
  var byId = new Map();
  nodes.forEach(function (n) { byId.set(n.id, n); });
  var chains = new Map();
  nodes.forEach(function (n) {
    if (!chains.has(n.e)) chains.set(n.e, []);
    chains.get(n.e).push(n);
  });
  var head = new Map(); // entity -> its current version, else its newest one
  chains.forEach(function (chain, entity) {
    chain.sort(function (a, b) { return a.f < b.f ? -1 : a.f > b.f ? 1 : a.id < b.id ? -1 : 1; });
    var cur = null;
    chain.forEach(function (v) { if (v.current) cur = v; });
    head.set(entity, cur || chain[chain.length - 1]);
  });

  var edges = [];
  DATA.edges.forEach(function (e) {
    var sup = e.rel === SUPERSEDES;
    var a = sup ? byId.get(e.a) : head.get(e.a);
    var b = sup ? byId.get(e.b) : head.get(e.b);
    if (!a || !b) return;
    edges.push({ id: e.id, rel: e.rel, a: a, b: b, ea: e.a, eb: e.b, f: e.f, u: e.u || null,
      current: !e.u, sup: sup });
  });
  var adjacency = new Map(); // entity -> non-supersedes edges touching it
  edges.forEach(function (e) {
    if (e.sup) return;
    (e.ea === e.eb ? [e.ea] : [e.ea, e.eb]).forEach(function (ent) {
      if (!adjacency.has(ent)) adjacency.set(ent, []);
      adjacency.get(ent).push(e);
    });
    if (e.current) {
      if (e.a.current) e.a.deg++;
      if (e.b.current && e.b !== e.a) e.b.deg++;
    }
  });
  nodes.forEach(function (n) { n.rad = Math.min(26, 4 + 1.6 * Math.sqrt(n.deg)); });
  (function rank() {
    var i = 0;
    nodes.forEach(function (n) { if (head.get(n.e) === n) n.rank = i++; });
    nodes.forEach(function (n) { if (head.get(n.e) !== n) n.rank = i++; });
  })();

  var kinds = Array.from(new Set(nodes.map(function (n) { return n.k; }))).sort();
  var scopes = Array.from(new Set(nodes.map(function (n) { return n.s; }))).sort();
  // A stable colour per kind: hue from a hash of its name, lightness nudged by other bits
  // so two kinds whose hues land close still differ.
  var hue = new Map(kinds.map(function (k) { var h = fnv1a(k); return [k, [h % 360, ((h >>> 12) % 3) - 1]]; }));

  // ---- view state ------------------------------------------------------------------
  var hiddenKinds = new Set();
  var scopeSel = "*";
  var showHistory = false;
  var visNodes = [], visEdges = [], simLinks = [], labelOrder = [], byKind = new Map();
  var selected = null, hovered = null, lastCentred = null;
  var matches = null, matchQuery = "";
  var view = { x: 0, y: 0, k: 1 };
  var autoFit = true;
  var W = 0, H = 0, dpr = 1;
  var colors = {};

  // ---- the simulation --------------------------------------------------------------
  var DEFAULTS = Object.freeze({
    repulsion: 80, linkDistance: 40, linkStrength: 1, gravity: 0.05, collision: 0.7, friction: 0.4
  });
  var params = Object.assign({}, DEFAULTS);
  var ALPHA_MIN = 0.001, ALPHA_DECAY = 1 - Math.pow(ALPHA_MIN, 1 / 300), THETA2 = 0.81;
  var FRAME_BUDGET_MS = 12, MAX_TICKS_PER_FRAME = 300;
  var alpha = 1, alphaTarget = 0, running = true, ticks = 0;

  function linkForce(a) {
    var base = params.linkStrength, dist = params.linkDistance;
    for (var i = 0; i < simLinks.length; i++) {
      var l = simLinks[i], s = l.a, t = l.b;
      var dx = t.x + t.vx - s.x - s.vx || jiggle();
      var dy = t.y + t.vy - s.y - s.vy || jiggle();
      var len = Math.sqrt(dx * dx + dy * dy);
      len = (len - dist) / len * a * base * l.strength;
      dx *= len; dy *= len;
      t.vx -= dx * l.bias; t.vy -= dy * l.bias;
      s.vx += dx * (1 - l.bias); s.vy += dy * (1 - l.bias);
    }
  }

  function buildQuad(pts, x0, y0, size, depth) {
    var q = { x: 0, y: 0, m: 0, s: size, c: null, p: null };
    if (pts.length <= 1 || depth > 24) {
      q.p = pts;
      for (var i = 0; i < pts.length; i++) { q.x += pts[i].x; q.y += pts[i].y; }
      q.m = pts.length; q.x /= q.m; q.y /= q.m;
      return q;
    }
    var h = size / 2, mx = x0 + h, my = y0 + h, parts = [[], [], [], []];
    for (var j = 0; j < pts.length; j++) {
      var p = pts[j];
      parts[(p.x >= mx ? 1 : 0) | (p.y >= my ? 2 : 0)].push(p);
    }
    q.c = [];
    for (var k = 0; k < 4; k++) {
      if (!parts[k].length) continue;
      var c = buildQuad(parts[k], k & 1 ? mx : x0, k & 2 ? my : y0, h, depth + 1);
      q.c.push(c); q.m += c.m; q.x += c.x * c.m; q.y += c.y * c.m;
    }
    q.x /= q.m; q.y /= q.m;
    return q;
  }

  function chargeForce(a) {
    var n = visNodes.length;
    if (n < 2 || params.repulsion <= 0) return;
    var x0 = Infinity, y0 = Infinity, x1 = -Infinity, y1 = -Infinity, i;
    for (i = 0; i < n; i++) {
      var p = visNodes[i];
      if (p.x < x0) x0 = p.x; if (p.x > x1) x1 = p.x;
      if (p.y < y0) y0 = p.y; if (p.y > y1) y1 = p.y;
    }
    var root = buildQuad(visNodes, x0, y0, Math.max(x1 - x0, y1 - y0, 1) * 1.0001, 0);
    var k = -params.repulsion * a, stack = [];
    for (i = 0; i < n; i++) {
      var node = visNodes[i];
      stack.length = 0; stack.push(root);
      while (stack.length) {
        var q = stack.pop();
        var dx = q.x - node.x, dy = q.y - node.y, l = dx * dx + dy * dy;
        if (q.c && q.s * q.s / THETA2 < l) {
          if (l < 1) l = Math.sqrt(l);
          node.vx += dx * k * q.m / l; node.vy += dy * k * q.m / l;
          continue;
        }
        if (q.c) { for (var c = 0; c < q.c.length; c++) stack.push(q.c[c]); continue; }
        for (var j = 0; j < q.p.length; j++) {
          var o = q.p[j];
          if (o === node) continue;
          dx = o.x - node.x || jiggle(); dy = o.y - node.y || jiggle();
          l = dx * dx + dy * dy;
          if (l < 1) l = Math.sqrt(l);
          node.vx += dx * k / l; node.vy += dy * k / l;
        }
      }
    }
  }

  function gravityForce(a) {
    var g = params.gravity * a;
    if (g <= 0) return;
    for (var i = 0; i < visNodes.length; i++) {
      var n = visNodes[i];
      n.vx -= n.x * g; n.vy -= n.y * g;
    }
  }

  function collideForce() {
    var strength = params.collision, n = visNodes.length;
    if (strength <= 0 || n < 2) return;
    var pad = 2, maxR = 0, i;
    for (i = 0; i < n; i++) if (visNodes[i].rad > maxR) maxR = visNodes[i].rad;
    var cell = 2 * (maxR + pad), grid = new Map();
    function key(cx, cy) { return ((cx & 0xffff) << 16) | (cy & 0xffff); }
    for (i = 0; i < n; i++) {
      var p = visNodes[i];
      p._cx = Math.floor((p.x + p.vx) / cell); p._cy = Math.floor((p.y + p.vy) / cell); p._i = i;
      var kk = key(p._cx, p._cy);
      var list = grid.get(kk);
      if (list) list.push(p); else grid.set(kk, [p]);
    }
    for (i = 0; i < n; i++) {
      var a = visNodes[i], xi = a.x + a.vx, yi = a.y + a.vy, ri = a.rad + pad, ri2 = ri * ri;
      for (var ox = -1; ox <= 1; ox++) {
        for (var oy = -1; oy <= 1; oy++) {
          var cellList = grid.get(key(a._cx + ox, a._cy + oy));
          if (!cellList) continue;
          for (var j = 0; j < cellList.length; j++) {
            var b = cellList[j];
            if (b._i <= i) continue;
            var rj = b.rad + pad, r = ri + rj;
            var x = xi - b.x - b.vx, y = yi - b.y - b.vy, l = x * x + y * y;
            if (l >= r * r) continue;
            if (x === 0) { x = jiggle(); l += x * x; }
            if (y === 0) { y = jiggle(); l += y * y; }
            l = Math.sqrt(l);
            l = (r - l) / l * strength;
            x *= l; y *= l;
            var w = (rj * rj) / (ri2 + rj * rj);
            a.vx += x * w; a.vy += y * w;
            b.vx -= x * (1 - w); b.vy -= y * (1 - w);
          }
        }
      }
    }
  }

  var perf = { tickMs: 0, drawMs: 0 };
  function tick() {
    var t0 = performance.now();
    alpha += (alphaTarget - alpha) * ALPHA_DECAY;
    linkForce(alpha);
    chargeForce(alpha);
    gravityForce(alpha);
    collideForce();
    var keep = 1 - params.friction;
    for (var i = 0; i < visNodes.length; i++) {
      var n = visNodes[i];
      if (n.fx != null) { n.x = n.fx; n.vx = 0; } else { n.vx *= keep; n.x += n.vx; }
      if (n.fy != null) { n.y = n.fy; n.vy = 0; } else { n.vy *= keep; n.y += n.vy; }
    }
    ticks++;
    perf.tickMs = performance.now() - t0;
  }

  function reheat(a) {
    alpha = Math.max(alpha, a);
    running = true;
    schedule();
  }

  // ---- filters ---------------------------------------------------------------------
  function passesScopeAndHistory(n) {
    return (scopeSel === "*" || n.s === scopeSel) && (showHistory || n.current);
  }

  function place(n) {
    var h = head.get(n.e);
    if (h !== n && !isNaN(h.x)) {
      var r = mulberry32(fnv1a(n.id));
      n.x = h.x + (r() - 0.5) * 30; n.y = h.y + (r() - 0.5) * 30;
      return;
    }
    var radius = 10 * Math.sqrt(0.5 + n.rank), angle = n.rank * Math.PI * (3 - Math.sqrt(5));
    n.x = radius * Math.cos(angle); n.y = radius * Math.sin(angle);
  }

  function recompute() {
    var perKind = new Map(kinds.map(function (k) { return [k, 0]; }));
    visNodes = [];
    nodes.forEach(function (n) {
      var inScope = passesScopeAndHistory(n);
      if (inScope) perKind.set(n.k, perKind.get(n.k) + 1);
      n.vis = inScope && !hiddenKinds.has(n.k);
      if (n.vis) visNodes.push(n);
    });
    visNodes.forEach(function (n) { if (head.get(n.e) === n && isNaN(n.x)) place(n); });
    visNodes.forEach(function (n) { if (isNaN(n.x)) place(n); });
    visEdges = edges.filter(function (e) {
      return e.a.vis && e.b.vis && (showHistory || (e.current && !e.sup));
    });
    var count = new Map();
    simLinks = [];
    visEdges.forEach(function (e) {
      if (e.a === e.b) return;
      count.set(e.a, (count.get(e.a) || 0) + 1);
      count.set(e.b, (count.get(e.b) || 0) + 1);
      simLinks.push({ a: e.a, b: e.b, strength: 1, bias: 0.5 });
    });
    simLinks.forEach(function (l) {
      var ca = count.get(l.a), cb = count.get(l.b);
      l.strength = 1 / Math.min(ca, cb);
      l.bias = ca / (ca + cb);
    });
    byKind = new Map();
    visNodes.forEach(function (n) {
      if (!byKind.has(n.k)) byKind.set(n.k, []);
      byKind.get(n.k).push(n);
    });
    labelOrder = visNodes.slice().sort(function (a, b) { return b.deg - a.deg || (a.id < b.id ? -1 : 1); });
    $("counts").textContent = visNodes.length + " nodes · " + visEdges.length + " edges";
    $("empty").hidden = visNodes.length > 0;
    legendButtons.forEach(function (btn, k) {
      btn.querySelector(".count").textContent = String(perKind.get(k));
      btn.classList.toggle("off", hiddenKinds.has(k));
      btn.setAttribute("aria-pressed", hiddenKinds.has(k) ? "false" : "true");
    });
    if (selected && !selected.vis) closePanel();
    reheat(0.3);
  }

  // ---- drawing ---------------------------------------------------------------------
  var canvas = $("graph"), ctx = canvas.getContext("2d");

  function readColors() {
    var cs = getComputedStyle(document.documentElement);
    ["bg", "fg", "muted", "edge", "ghost-edge", "accent", "label", "halo"].forEach(function (name) {
      colors[name] = cs.getPropertyValue("--" + name).trim();
    });
    colors.dark = document.documentElement.dataset.theme === "dark";
  }
  function kindColor(k) {
    var c = hue.get(k), light = (colors.dark ? 62 : 47) + 9 * c[1];
    return "hsl(" + c[0] + ", " + (68 - 8 * c[1]) + "%, " + light + "%)";
  }

  function resize() {
    dpr = window.devicePixelRatio || 1;
    W = canvas.clientWidth; H = canvas.clientHeight;
    canvas.width = Math.max(1, Math.round(W * dpr));
    canvas.height = Math.max(1, Math.round(H * dpr));
    schedule();
  }

  function fit(lerp) {
    if (!visNodes.length || !W || !H) return;
    var x0 = Infinity, y0 = Infinity, x1 = -Infinity, y1 = -Infinity;
    visNodes.forEach(function (n) {
      x0 = Math.min(x0, n.x - n.rad); x1 = Math.max(x1, n.x + n.rad);
      y0 = Math.min(y0, n.y - n.rad); y1 = Math.max(y1, n.y + n.rad);
    });
    var k = Math.min(W / (x1 - x0 + 80), H / (y1 - y0 + 80), 2.5);
    var tx = W / 2 - k * (x0 + x1) / 2, ty = H / 2 - k * (y0 + y1) / 2;
    view.k += (k - view.k) * lerp; view.x += (tx - view.x) * lerp; view.y += (ty - view.y) * lerp;
  }

  function draw() {
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    ctx.fillStyle = colors.bg;
    ctx.fillRect(0, 0, W, H);
    ctx.setTransform(dpr * view.k, 0, 0, dpr * view.k, dpr * view.x, dpr * view.y);
    var px = 1 / view.k, dim = matches !== null;
    ctx.lineWidth = px;
    function strokeEdges(filter, style, dash, alphaMul) {
      ctx.beginPath();
      var any = false;
      for (var i = 0; i < visEdges.length; i++) {
        var e = visEdges[i];
        if (!filter(e)) continue;
        ctx.moveTo(e.a.x, e.a.y); ctx.lineTo(e.b.x, e.b.y); any = true;
      }
      if (!any) return;
      ctx.globalAlpha = alphaMul;
      ctx.strokeStyle = style;
      ctx.setLineDash(dash ? [4 * px, 3 * px] : []);
      ctx.stroke();
      ctx.setLineDash([]);
      ctx.globalAlpha = 1;
    }
    var edgeAlpha = dim ? 0.25 : 1;
    strokeEdges(function (e) { return e.current && !e.sup; }, colors.edge, false, edgeAlpha);
    strokeEdges(function (e) { return !e.current || e.sup; }, colors["ghost-edge"], true, edgeAlpha);
    if (selected && selected.vis) {
      ctx.lineWidth = 2 * px;
      strokeEdges(function (e) { return e.a === selected || e.b === selected; }, colors.accent, false, 0.9);
      ctx.lineWidth = px;
    }
    byKind.forEach(function (list, k) {
      var color = kindColor(k);
      for (var pass = 0; pass < 4; pass++) {
        var ghost = pass >= 2, lit = pass % 2 === 0;
        ctx.beginPath();
        var any = false;
        for (var i = 0; i < list.length; i++) {
          var n = list[i];
          if (n.current === ghost) continue;
          if (dim && matches.has(n) !== lit) continue;
          if (!dim && !lit) continue;
          var r = n.rad;
          if (r * view.k < 1.5) { ctx.rect(n.x - r, n.y - r, 2 * r, 2 * r); } else { ctx.moveTo(n.x + r, n.y); ctx.arc(n.x, n.y, r, 0, 2 * Math.PI); }
          any = true;
        }
        if (!any) continue;
        ctx.globalAlpha = (lit ? 1 : 0.12) * (ghost ? 0.4 : 1);
        ctx.fillStyle = color;
        ctx.fill();
        if (ghost) { ctx.strokeStyle = color; ctx.setLineDash([2 * px, 2 * px]); ctx.stroke(); ctx.setLineDash([]); }
      }
    });
    ctx.globalAlpha = 1;
    [hovered, selected].forEach(function (n, i) {
      if (!n || !n.vis) return;
      ctx.beginPath();
      ctx.arc(n.x, n.y, n.rad + 3 * px, 0, 2 * Math.PI);
      ctx.lineWidth = (i ? 2.5 : 1.5) * px;
      ctx.strokeStyle = i ? colors.accent : colors.fg;
      ctx.stroke();
    });
    drawLabels();
  }

  function drawLabels() {
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    ctx.font = "12px system-ui, sans-serif";
    ctx.textAlign = "center";
    ctx.textBaseline = "top";
    ctx.lineWidth = 3;
    ctx.strokeStyle = colors.halo;
    ctx.fillStyle = colors.label;
    var drawn = 0, k = view.k;
    function label(n) {
      var sx = n.x * k + view.x, sy = (n.y + n.rad) * k + view.y + 3;
      if (sx < -200 || sx > W + 200 || sy < -20 || sy > H + 20) return;
      var text = n.t.length > 48 ? n.t.slice(0, 47) + "…" : n.t;
      ctx.strokeText(text, sx, sy); ctx.fillText(text, sx, sy);
      drawn++;
    }
    for (var i = 0; i < labelOrder.length && drawn < 250; i++) {
      var n = labelOrder[i];
      if (n === selected || n === hovered) continue;
      if (matches !== null && !matches.has(n)) continue;
      if (k >= 1.1 || n.rad * k >= 9) label(n);
    }
    if (selected && selected.vis) label(selected);
    if (hovered && hovered.vis && hovered !== selected) label(hovered);
  }

  // ---- the frame loop --------------------------------------------------------------
  var raf = 0;
  function schedule() { if (!raf) raf = requestAnimationFrame(frame); }
  function frame() {
    raf = 0;
    if (running) {
      var t0 = performance.now(), n = 0;
      do { tick(); n++; } while (n < MAX_TICKS_PER_FRAME && alpha >= ALPHA_MIN &&
        performance.now() - t0 < FRAME_BUDGET_MS);
      if (alpha < ALPHA_MIN && alphaTarget === 0) running = false;
    }
    if (autoFit) fit(running ? 0.15 : 1);
    var d0 = performance.now();
    draw();
    perf.drawMs = performance.now() - d0;
    if (running) schedule();
  }

  // ---- the node panel --------------------------------------------------------------
  function status(n) {
    if (n.current) return "current";
    return n.r != null || !n.sb ? "retired" : "superseded";
  }
  function when(iso) { return iso.replace("T", " ").replace(/\.\d+Z$/, "Z"); }
  function el(tag, cls, text) {
    var e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text != null) e.textContent = text;
    return e;
  }
  function overlaps(e, n) {
    if (n.current) return e.current || showHistory;
    return e.f < n.u && (!e.u || e.u > n.f);
  }

  function select(id) {
    var n = byId.get(id);
    if (!n) return;
    selected = n;
    var meta = $("p-meta");
    meta.textContent = "";
    var st = status(n);
    meta.appendChild(el("span", "tag " + st, st));
    meta.appendChild(document.createTextNode(n.k + " · " + n.s + (n.key != null ? " · " + n.key : "")));
    $("p-title").textContent = n.t;
    var body = $("p-body");
    body.innerHTML = n.h; // rendered at export time with raw HTML disabled and safe links only
    if (!n.h) body.appendChild(el("p", "muted", "(no body)"));
    if (n.r != null) body.appendChild(el("p", "muted", "Retired: " + n.r));
    var data = $("p-data");
    data.textContent = "";
    n.d.forEach(function (pair) { data.appendChild(el("dt", "", pair[0])); data.appendChild(el("dd", "", pair[1])); });
    $("p-data-h").hidden = data.hidden = n.d.length === 0;
    var conn = $("p-connections");
    conn.textContent = "";
    (adjacency.get(n.e) || []).filter(function (e) { return overlaps(e, n); }).forEach(function (e) {
      var out = e.ea === n.e, other = out ? e.b : e.a;
      var li = el("li"), btn = el("button");
      btn.type = "button";
      btn.dataset.id = other.id;
      btn.appendChild(el("span", "rel", (out ? "→ " : "← ") + e.rel + (e.current ? "" : " (ended)")));
      btn.appendChild(document.createTextNode(" " + other.t));
      btn.title = other.k + " · " + other.s;
      li.appendChild(btn);
      conn.appendChild(li);
    });
    if (!conn.children.length) conn.appendChild(el("li", "muted", "none"));
    var hist = $("p-history"), chain = chains.get(n.e);
    hist.textContent = "";
    $("p-history-h").hidden = hist.hidden = chain.length < 2;
    chain.forEach(function (v) {
      var li = el("li", v === n ? "at" : ""), btn = el("button"), s = status(v);
      btn.type = "button";
      btn.dataset.id = v.id;
      btn.appendChild(el("span", "tag " + s, s));
      btn.appendChild(document.createTextNode(v.t));
      var t = el("time", "", when(v.f) + (v.u ? " → " + when(v.u) : " → now"));
      t.dateTime = v.f;
      btn.appendChild(t);
      li.appendChild(btn);
      hist.appendChild(li);
    });
    $("panel").hidden = false;
    $("panel").scrollTop = 0;
    schedule();
  }

  function closePanel() {
    selected = null;
    $("panel").hidden = true;
    schedule();
  }

  function centreOn(n) {
    view.k = Math.max(view.k, 1);
    view.x = W / 2 - n.x * view.k;
    view.y = H / 2 - n.y * view.k;
    autoFit = false;
    lastCentred = n.id;
    schedule();
  }

  function navigate(id) {
    var n = byId.get(id);
    if (!n) return;
    var changed = false;
    if (!n.current && !showHistory) { showHistory = true; $("history").checked = true; changed = true; }
    if (hiddenKinds.has(n.k)) { hiddenKinds.delete(n.k); changed = true; }
    if (scopeSel !== "*" && scopeSel !== n.s) { scopeSel = "*"; $("scope").value = "*"; changed = true; }
    if (changed) recompute();
    select(id);
    centreOn(n);
  }

  function onPanelClick(ev) {
    var target = ev.target.closest("button[data-id], a.wikilink[data-entity]");
    if (!target) return;
    if (target.tagName === "A") {
      ev.preventDefault();
      var h = head.get(target.dataset.entity);
      if (h) navigate(h.id);
      return;
    }
    navigate(target.dataset.id);
  }

  // ---- search ----------------------------------------------------------------------
  function bodyText(n) {
    if (n.text === null) {
      n.text = n.h.replace(/<[^>]*>/g, " ").replace(/&lt;/g, "<").replace(/&gt;/g, ">")
        .replace(/&quot;/g, "\"").replace(/&#39;/g, "'").replace(/&amp;/g, "&").toLowerCase();
    }
    return n.text;
  }
  function wordEnd(text, at) { return at >= text.length || !/[0-9a-z]/i.test(text.charAt(at)); }
  function score(n, q) {
    var t = n.t.toLowerCase(), key = (n.key || "").toLowerCase(), at = t.indexOf(q);
    if (t === q) return 100;
    if (key === q) return 90;
    if (at === 0) return wordEnd(t, q.length) ? 85 : 80; // "node 12" prefers "Node 12 …"
    if (at > 0) return wordEnd(t, at + q.length) ? 65 : 60;
    if (key.indexOf(q) >= 0) return 50;
    if (n.k === q || n.id === q) return 40;
    if (bodyText(n).indexOf(q) >= 0) return 10;
    return 0;
  }
  function runSearch() {
    var q = $("search").value.trim().toLowerCase();
    matchQuery = q;
    if (!q) { matches = null; schedule(); return; }
    matches = new Map();
    nodes.forEach(function (n) { var s = score(n, q); if (s > 0) matches.set(n, s); });
    schedule();
  }
  function bestMatch() {
    if (!matches) return null;
    var best = null, bestScore = -1;
    matches.forEach(function (s, n) {
      if (!n.vis) return;
      var rank = s * 1000 + Math.min(n.deg, 999) + (n.current ? 0.5 : 0);
      if (rank > bestScore || (rank === bestScore && n.id < best.id)) { best = n; bestScore = rank; }
    });
    return best;
  }
  function clearSearch() {
    $("search").value = "";
    matches = null; matchQuery = "";
    schedule();
  }

  // ---- pointer: drag a node, pan, zoom, click -------------------------------------------
  function toWorld(sx, sy) { return { x: (sx - view.x) / view.k, y: (sy - view.y) / view.k }; }
  function nodeAt(sx, sy) {
    var w = toWorld(sx, sy), best = null, bestD = Infinity;
    for (var i = 0; i < visNodes.length; i++) {
      var n = visNodes[i], dx = n.x - w.x, dy = n.y - w.y, d = dx * dx + dy * dy;
      var reach = Math.max(n.rad, 5 / view.k) + 2 / view.k;
      if (d <= reach * reach && d < bestD) { best = n; bestD = d; }
    }
    return best;
  }
  var drag = null;
  function local(ev) { var r = canvas.getBoundingClientRect(); return { x: ev.clientX - r.left, y: ev.clientY - r.top }; }
  canvas.addEventListener("pointerdown", function (ev) {
    if (ev.button !== 0) return;
    var p = local(ev), n = nodeAt(p.x, p.y);
    canvas.setPointerCapture(ev.pointerId);
    drag = { node: n, x: p.x, y: p.y, moved: false, vx: view.x, vy: view.y };
    if (n) { n.fx = n.x; n.fy = n.y; }
  });
  canvas.addEventListener("pointermove", function (ev) {
    var p = local(ev);
    if (!drag) {
      var h = nodeAt(p.x, p.y);
      if (h !== hovered) { hovered = h; canvas.classList.toggle("over-node", !!h); schedule(); }
      return;
    }
    if (!drag.moved && Math.abs(p.x - drag.x) + Math.abs(p.y - drag.y) > 3) {
      drag.moved = true;
      autoFit = false;
      canvas.classList.add("dragging");
      if (drag.node) { alphaTarget = 0.3; reheat(0.3); }
    }
    if (!drag.moved) return;
    if (drag.node) {
      var w = toWorld(p.x, p.y);
      drag.node.fx = w.x; drag.node.fy = w.y;
    } else {
      view.x = drag.vx + p.x - drag.x; view.y = drag.vy + p.y - drag.y;
    }
    schedule();
  });
  function endDrag() {
    if (!drag) return;
    var d = drag;
    drag = null;
    canvas.classList.remove("dragging");
    if (d.node) {
      d.node.fx = null; d.node.fy = null;
      alphaTarget = 0;
      if (!d.moved) select(d.node.id);
      else reheat(0.1);
    } else if (!d.moved) {
      closePanel();
    }
  }
  canvas.addEventListener("pointerup", endDrag);
  canvas.addEventListener("pointercancel", endDrag);
  canvas.addEventListener("pointerleave", function () { if (hovered) { hovered = null; schedule(); } });
  canvas.addEventListener("wheel", function (ev) {
    ev.preventDefault();
    var p = local(ev), w = toWorld(p.x, p.y);
    var k = Math.min(8, Math.max(0.02, view.k * Math.exp(-ev.deltaY * 0.0015)));
    view.k = k; view.x = p.x - w.x * k; view.y = p.y - w.y * k;
    autoFit = false;
    schedule();
  }, { passive: false });

  // ---- controls --------------------------------------------------------------------
  var legendButtons = new Map();
  kinds.forEach(function (k) {
    var btn = el("button");
    btn.type = "button";
    btn.dataset.kind = k;
    var sw = el("span", "swatch");
    sw.dataset.kind = k;
    btn.appendChild(sw);
    btn.appendChild(el("span", "name", k));
    btn.appendChild(el("span", "count", "0"));
    btn.addEventListener("click", function () {
      if (hiddenKinds.has(k)) hiddenKinds.delete(k); else hiddenKinds.add(k);
      recompute();
    });
    legendButtons.set(k, btn);
    $("legend").appendChild(btn);
  });
  $("legend").hidden = kinds.length === 0;
  function paintSwatches() {
    legendButtons.forEach(function (btn, k) { btn.querySelector(".swatch").style.background = kindColor(k); });
  }

  var scopeSelect = $("scope");
  var allOpt = el("option", "", "All scopes");
  allOpt.value = "*";
  scopeSelect.appendChild(allOpt);
  scopes.forEach(function (s) {
    var o = el("option", "", s);
    o.value = s;
    scopeSelect.appendChild(o);
  });
  scopeSelect.hidden = scopes.length < 2;
  scopeSelect.addEventListener("change", function () { scopeSel = scopeSelect.value; recompute(); });

  $("history").addEventListener("change", function () { showHistory = $("history").checked; recompute(); });

  var SLIDERS = [
    ["repulsion", "Repulsion", 0, 400, 1],
    ["linkDistance", "Link distance", 5, 300, 1],
    ["linkStrength", "Link strength", 0, 2, 0.01],
    ["gravity", "Gravity", 0, 0.5, 0.005],
    ["collision", "Collision", 0, 1, 0.01],
    ["friction", "Friction", 0.05, 0.95, 0.01]
  ];
  function kebab(s) { return s.replace(/[A-Z]/g, function (c) { return "-" + c.toLowerCase(); }); }
  var sliderInputs = new Map();
  SLIDERS.forEach(function (spec) {
    var name = spec[0], label = el("label"), value = el("span", "", String(params[name]));
    var input = el("input");
    input.type = "range"; input.id = "s-" + kebab(name); input.name = name;
    input.min = String(spec[2]); input.max = String(spec[3]); input.step = String(spec[4]);
    input.value = String(params[name]);
    label.htmlFor = input.id;
    label.appendChild(document.createTextNode(spec[1]));
    label.appendChild(value);
    input.addEventListener("input", function () {
      params[name] = Number(input.value);
      value.textContent = input.value;
      reheat(0.5);
    });
    sliderInputs.set(name, { input: input, value: value });
    $("sliders").appendChild(label);
    $("sliders").appendChild(input);
  });
  $("reset").addEventListener("click", function () {
    params = Object.assign({}, DEFAULTS);
    sliderInputs.forEach(function (s, name) { s.input.value = String(params[name]); s.value.textContent = String(params[name]); });
    reheat(0.5);
  });
  $("gear").addEventListener("click", function () {
    var panel = $("settings");
    panel.hidden = !panel.hidden;
    $("gear").setAttribute("aria-expanded", String(!panel.hidden));
  });

  var media = window.matchMedia ? window.matchMedia("(prefers-color-scheme: dark)") : null;
  var themeChosen = false;
  function setTheme(t) {
    document.documentElement.dataset.theme = t;
    $("theme").textContent = t === "dark" ? "☀" : "☾";
    $("theme").setAttribute("aria-label", t === "dark" ? "Switch to light theme" : "Switch to dark theme");
    readColors();
    paintSwatches();
    schedule();
  }
  $("theme").addEventListener("click", function () {
    themeChosen = true;
    setTheme(document.documentElement.dataset.theme === "dark" ? "light" : "dark");
  });
  if (media && media.addEventListener) {
    media.addEventListener("change", function () { if (!themeChosen) setTheme(media.matches ? "dark" : "light"); });
  }

  $("panel").addEventListener("click", onPanelClick);
  $("p-close").addEventListener("click", closePanel);
  var search = $("search");
  search.addEventListener("input", runSearch);
  search.addEventListener("keydown", function (ev) {
    if (ev.key === "Enter") {
      ev.preventDefault();
      var best = bestMatch();
      if (best) { select(best.id); centreOn(best); }
    } else if (ev.key === "Escape") {
      ev.preventDefault();
      clearSearch();
      search.blur();
    }
  });
  document.addEventListener("keydown", function (ev) {
    var tag = (ev.target && ev.target.tagName) || "";
    var typing = tag === "INPUT" || tag === "SELECT" || tag === "TEXTAREA";
    if (ev.key === "/" && !typing) { ev.preventDefault(); search.focus(); search.select(); }
    else if (ev.key === "Escape" && !typing) { if (matches) clearSearch(); else closePanel(); }
  });
  window.addEventListener("resize", resize);

  // ---- the test hook (read-only) ----------------------------------------------------------
  function screenPos(id) {
    var n = byId.get(id);
    if (!n || !n.vis) return null;
    var r = canvas.getBoundingClientRect();
    return { x: r.left + n.x * view.k + view.x, y: r.top + n.y * view.k + view.y, r: n.rad * view.k };
  }
  window.__ryvem = Object.freeze({
    version: 1,
    counts: function () { return { nodes: visNodes.length, edges: visEdges.length }; },
    totals: function () { return { nodes: nodes.length, edges: edges.length }; },
    selected: function () { return selected ? selected.id : null; },
    sim: function () {
      return { alpha: alpha, running: running, ticks: ticks, params: Object.assign({}, params),
        defaults: Object.assign({}, DEFAULTS), lastTickMs: perf.tickMs, lastDrawMs: perf.drawMs };
    },
    settled: function () { return !running; },
    view: function () { return { x: view.x, y: view.y, k: view.k }; },
    screenPos: screenPos,
    visibleIds: function () { return visNodes.map(function (n) { return n.id; }); },
    positions: function () {
      var out = {};
      visNodes.forEach(function (n) { out[n.id] = [n.x, n.y]; });
      return out;
    },
    matches: function () {
      if (!matches) return [];
      var out = [];
      matches.forEach(function (s, n) { if (n.vis) out.push(n.id); });
      return out.sort();
    },
    centred: function () { return lastCentred; },
    theme: function () { return document.documentElement.dataset.theme; },
    kindColor: function (k) { return hue.has(k) ? kindColor(k) : null; }
  });

  // ---- start -------------------------------------------------------------------------------
  setTheme(media && media.matches ? "dark" : "light");
  resize();
  recompute();
  alpha = 1;
})();
