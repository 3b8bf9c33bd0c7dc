/* ryvem graph export — the page's only script (no third-party code; MIT, part of ryvem).
 *
 * A force-directed view of the embedded graph, built for 100,000 nodes: the data is
 * decoded into typed arrays (format 2: columnar, ids as indexes, strings interned); the
 * layout runs in a Web Worker made from an inline blob (physics.js, Barnes–Hut), or on the
 * main thread in time-boxed slices where no worker can start; nodes and edges are drawn with
 * WebGL (points and lines) or, without it, on a 2D canvas; labels, rings and the selected
 * node's edges go on a 2D overlay, labels only when zoomed in. A time slider sets the page's
 * instant: what is drawn is what was valid then. Bodies sit in blocks of 1,000 and are
 * parsed only when a panel or a search needs them.
 *
 * Test hook (read-only): window.__ryvem — see the README section "HTML export".
 */
(function () {
  "use strict";

  var $ = function (id) { return document.getElementById(id); };
  // performance marks "ryvem:<stage>" (read by the benchmark): parse, decode, first frame …
  function mark(name) { try { performance.mark("ryvem:" + name); } catch (err) { /* old browser */ } }
  mark("start");
  // @include physics.js

  // The layout worker is started before the data is decoded: a worker starts only once the
  // main thread yields, and the first tick waits for it (the page then sends it the graph).
  var earlyWorker = null;
  if (!/(?:^#|&)w=main(?:&|$)/.test(location.hash)) { // #w=main: the no-worker path, for tests
    try {
      earlyWorker = new Worker(URL.createObjectURL(new Blob(["(" + physics.toString() + ")(self);"],
        { type: "text/javascript" })));
    } catch (err) { earlyWorker = null; }
  }
  var DATA = JSON.parse($("ryvem-data").textContent);
  mark("parsed");
  // The start is cut into tasks (parse | decode and controls | layout's graph | renderer), so
  // no task holds the page for more than a fraction of the 100k start (each ~100 ms there).
  setTimeout(decodeAndRun, 0);
  function decodeAndRun() {

  // ---- seeded hashing ---------------------------------------------------------------
  function fnv1a(str) {
    var h = 0x811c9dc5;
    for (var i = 0; i < str.length; i++) {
      h ^= str.charCodeAt(i);
      h = Math.imul(h, 0x01000193);
    }
    h ^= h >>> 16; h = Math.imul(h, 0x85ebca6b);
    h ^= h >>> 13; h = Math.imul(h, 0xc2b2ae35);
    h ^= h >>> 16;
    return h >>> 0;
  }

  // ---- time ---------------------------------------------------------------------------
  function pad(n, w) { var s = String(n); while (s.length < w) s = "0" + s; return s; }
  function iso(us) {
    var ms = Math.floor(us / 1000), rest = us - ms * 1000;
    return new Date(ms).toISOString().slice(0, 23) + pad(rest, 3) + "Z";
  }
  // An ISO 8601 date or date-time, as the CLI's --as-of takes it: seconds and a fraction
  // optional, a zone Z or an offset (+02:00, -0330), none meaning UTC; NaN when it is not one.
  var ISO = /^(\d{4})-(\d\d)-(\d\d)(?:[T ](\d\d):(\d\d)(?::(\d\d)(?:[.,](\d+))?)?([Zz]|[+-]\d\d(?::?\d\d(?::?\d\d)?)?)?)?$/;
  function parseIso(text) {
    var m = ISO.exec(String(text).trim());
    if (!m) return NaN;
    var mo = +m[2], d = +m[3], h = +(m[4] || 0), mi = +(m[5] || 0), s = +(m[6] || 0);
    if (mo < 1 || mo > 12 || h > 23 || mi > 59 || s > 59) return NaN;
    var dt = new Date(0);
    dt.setUTCFullYear(+m[1], mo - 1, d); // not Date.UTC: it reads years 0-99 as 1900-1999
    dt.setUTCHours(h, mi, s, 0);
    if (dt.getUTCMonth() !== mo - 1 || dt.getUTCDate() !== d) return NaN; // 2026-11-31
    var us = dt.getTime() * 1000 + (m[7] ? Number((m[7] + "00000").slice(0, 6)) : 0);
    var z = m[8];
    if (z && z !== "Z" && z !== "z") {
      var dg = z.slice(1).replace(/:/g, "");
      var oh = +dg.slice(0, 2), om = +(dg.slice(2, 4) || 0), os = +(dg.slice(4, 6) || 0);
      if (oh > 23 || om > 59 || os > 59) return NaN;
      us += (z[0] === "+" ? -1 : 1) * ((oh * 60 + om) * 60 + os) * 1e6;
    }
    return us;
  }

  // ---- the model (columns) ------------------------------------------------------------
  var S = DATA.strings, ND = DATA.nodes, ED = DATA.edges, T0 = DATA.t0;
  var historyBodies = !!DATA.historyBodies;
  // A snapshot export (--as-of / --known-at) says so: its "now" is not the reader's.
  var AS_OF = DATA.asOf == null ? null : DATA.asOf, KNOWN_AT = DATA.knownAt == null ? null : DATA.knownAt;
  var N = ND.id.length, M = ED.rel.length;
  var ids = ND.id, titles = ND.t, keys = ND.key;
  var nEnt = Int32Array.from(ND.ent), nKind = Int32Array.from(ND.k), nScope = Int32Array.from(ND.s);
  var nF = new Float64Array(N), nU = new Float64Array(N);
  var nSb = Int32Array.from(ND.sb), nSp = Int32Array.from(ND.sp);
  (function () {
    var t = T0;
    for (var i = 0; i < N; i++) {
      t += ND.f[i]; nF[i] = t;
      nU[i] = ND.u[i] === 0 ? Infinity : t + ND.u[i] - 1;
    }
  })();
  var entName = new Map(ND.names);
  var reasonOf = new Map(ND.r);
  var erasedOf = new Map(ND.x || []), recOf = new Map(ND.rec || []);
  function entityName(ent) { return entName.has(ent) ? entName.get(ent) : ids[ent]; }
  var byIdMap = null, byId = { get: function (id) { // built on first use
    if (!byIdMap) { byIdMap = new Map(); for (var i = 0; i < N; i++) byIdMap.set(ids[i], i); }
    return byIdMap.get(id);
  } };
  var byEntityName = null;
  function entityByName(name) {
    if (!byEntityName) {
      byEntityName = new Map();
      for (var i = 0; i < N; i++) if (nEnt[i] === i) byEntityName.set(entityName(i), i);
    }
    return byEntityName.get(name);
  }
  var SUP = S.indexOf("supersedes");
  var eRel = Int32Array.from(ED.rel), eA = Int32Array.from(ED.a), eB = Int32Array.from(ED.b);
  var eF = new Float64Array(M), eU = new Float64Array(M), eSup = new Uint8Array(M);
  (function () {
    var t = T0;
    for (var j = 0; j < M; j++) {
      t += ED.f[j]; eF[j] = t;
      eU[j] = ED.u[j] === 0 ? Infinity : t + ED.u[j] - 1;
      eSup[j] = eRel[j] === SUP ? 1 : 0;
    }
  })();
  var edgeData = new Map(ED.d || []);
  DATA = ND = ED = null; // let the decoded JSON go
  mark("columns");

  // Version chains: for each entity (the index of its first version), its versions by time.
  var chainStart = new Int32Array(N + 1), chainOf = new Int32Array(N);
  (function () {
    var count = new Int32Array(N), i;
    for (i = 0; i < N; i++) count[nEnt[i]]++;
    for (i = 0; i < N; i++) chainStart[i + 1] = chainStart[i] + count[i];
    var fill = chainStart.slice(0, N);
    for (i = 0; i < N; i++) chainOf[fill[nEnt[i]]++] = i;
    for (i = 0; i < N; i++) {
      var a = chainStart[i], b = chainStart[i + 1];
      if (b - a > 1) {
        var part = Array.from(chainOf.subarray(a, b));
        part.sort(function (p, q) { return nF[p] - nF[q] || p - q; });
        chainOf.set(part, a);
      }
    }
  })();
  function chain(ent) { return Array.from(chainOf.subarray(chainStart[ent], chainStart[ent + 1])); }
  var headOf = new Int32Array(N).fill(-1); // entity -> current version, else its newest
  for (var e0 = 0; e0 < N; e0++) {
    var a0 = chainStart[e0], b0 = chainStart[e0 + 1];
    if (b0 === a0) continue;
    var h0 = chainOf[b0 - 1];
    for (var c0 = a0; c0 < b0; c0++) if (nU[chainOf[c0]] === Infinity) h0 = chainOf[c0];
    headOf[e0] = h0;
  }

  // Degree (current edges between current versions) sizes a node; it is fixed at load.
  var deg = new Int32Array(N), rad = new Float32Array(N);
  for (var j0 = 0; j0 < M; j0++) {
    if (eSup[j0] || eU[j0] !== Infinity) continue;
    var ha = headOf[eA[j0]], hb = headOf[eB[j0]];
    if (nU[ha] === Infinity) deg[ha]++;
    if (nU[hb] === Infinity && hb !== ha) deg[hb]++;
  }
  for (var r0 = 0; r0 < N; r0++) rad[r0] = Math.min(26, 4 + 1.6 * Math.sqrt(deg[r0]));
  var rank = new Int32Array(N);
  (function () {
    var k = 0, i;
    for (i = 0; i < N; i++) if (headOf[nEnt[i]] === i) rank[i] = k++;
    for (i = 0; i < N; i++) if (headOf[nEnt[i]] !== i) rank[i] = k++;
  })();
  // Labels and edges in order of importance (degree, then id): counting sorts, O(n).
  function byDegree(n, keyOf) {
    var max = 0, i;
    for (i = 0; i < n; i++) if (keyOf(i) > max) max = keyOf(i);
    var count = new Int32Array(max + 2);
    for (i = 0; i < n; i++) count[max - keyOf(i) + 1]++;
    for (i = 1; i < count.length; i++) count[i] += count[i - 1];
    var out = new Int32Array(n);
    for (i = 0; i < n; i++) out[count[max - keyOf(i)]++] = i;
    return out;
  }
  var labelOrder = byDegree(N, function (i) { return deg[i]; });
  // An edge's ends are entities, except a supersedes edge's, which are versions: its weight
  // is read at their entity's head (a version's own headOf is -1, and deg[-1] a NaN that the
  // counting sort dropped, leaving edge 0 in its place: drawn many times, supersedes never).
  function endHead(j, v) { return headOf[eSup[j] ? nEnt[v] : v]; }
  var edgeOrder = byDegree(M, function (j) { return Math.max(deg[endHead(j, eA[j])], deg[endHead(j, eB[j])]); });

  var kinds = S.filter(function (s, i) { for (var k = 0; k < N; k++) if (nKind[k] === i) return true; return false; });
  var kindIdx = new Map(kinds.map(function (k) { return [k, S.indexOf(k)]; }));
  var scopes = S.filter(function (s, i) { for (var k = 0; k < N; k++) if (nScope[k] === i) return true; return false; });
  var hue = new Map(kinds.map(function (k) { var h = fnv1a(k); return [k, [h % 360, ((h >>> 12) % 3) - 1]]; }));
  mark("decoded");

  // ---- bodies and data: blocks of 1,000, parsed on first use -------------------------------
  // An entry is the body's HTML, or [html, data summary] when the version has data.
  // The blocks come after this script in the file, so the first picture does not wait for
  // the HTML parser to read them: until the document is parsed a body reads as "" and the
  // panel says it is loading; DOMContentLoaded refreshes the panel and the search.
  var BODY_CHUNK = 1000, bodyBlocks = [], bodyTextCache = new Map();
  var bodiesReady = document.readyState !== "loading";
  function entry(i) {
    var b = Math.floor(i / BODY_CHUNK);
    if (!bodyBlocks[b]) {
      var node = $("ryvem-b" + b);
      if (!node && !bodiesReady) return "";
      bodyBlocks[b] = node ? JSON.parse(node.textContent) : [];
    }
    return bodyBlocks[b][i - b * BODY_CHUNK] || "";
  }
  function bodyHtml(i) { var e = entry(i); return typeof e === "string" ? e : e[0]; }
  function dataPairs(i) { var e = entry(i); return typeof e === "string" ? [] : e[1]; }
  function bodyText(i) {
    var t = bodyTextCache.get(i);
    if (t === undefined) {
      if (!bodiesReady) return "";
      t = bodyHtml(i).replace(/<[^>]*>/g, " ").replace(/&lt;/g, "<").replace(/&gt;/g, ">")
        .replace(/&quot;/g, "\"").replace(/&#39;/g, "'").replace(/&amp;/g, "&").toLowerCase();
      bodyTextCache.set(i, t);
    }
    return t;
  }

  // ---- view state ------------------------------------------------------------------
  var hiddenKinds = new Set(), scopeSel = "*", showHistory = false;
  var instant = null; // microseconds, or null for now
  var vis = new Uint8Array(N), live = new Uint8Array(N), repOf = new Int32Array(N);
  var visList = new Int32Array(0), nVis = 0, nGhostNodes = 0;
  var edgeList = new Int32Array(0), nEdgeLive = 0, nEdgeGhost = 0; // pairs of node indexes
  var visEdgeIdx = new Int32Array(0); // the edge behind each drawn pair
  var selected = -1, hovered = -1, lastCentred = null;
  var matches = null, matchQuery = "";
  var view = { x: 0, y: 0, k: 1 };
  var autoFit = true;
  var W = 0, H = 0, dpr = 1, colors = {};
  // The first picture does not wait for the worker: every node starts where the layout
  // puts a node it has not placed yet (a sunflower spiral by rank, physics.js place()).
  var pos = new Float32Array(2 * N);
  for (var p0 = 0; p0 < N; p0++) {
    var sr = 10 * Math.sqrt(0.5 + rank[p0]), sa = rank[p0] * Math.PI * (3 - Math.sqrt(5));
    pos[2 * p0] = sr * Math.cos(sa); pos[2 * p0 + 1] = sr * Math.sin(sa);
  }
  var dragFix = -1, dragX = 0, dragY = 0;

  // ---- the simulation (in a worker when possible) ---------------------------------------
  var DEFAULTS = Object.freeze({
    repulsion: 80, linkDistance: 40, linkStrength: 1, gravity: 0.05, collision: 0.7, friction: 0.4
  });
  var params = Object.assign({}, DEFAULTS);
  var sim = { alpha: 1, running: true, ticks: 0, seq: 0, doneSeq: -1, tickMs: 0, drawMs: 0,
    worker: false, firstTickAt: null };
  var port = null;
  function onSimMessage(m) {
    if (m.type !== "pos") return;
    pos.set(m.xy);
    if (dragFix >= 0) { pos[2 * dragFix] = dragX; pos[2 * dragFix + 1] = dragY; }
    sim.alpha = m.alpha; sim.ticks = m.ticks; sim.running = m.running; sim.doneSeq = m.seq;
    sim.tickMs = m.tickMs;
    if (m.ticks > 0 && sim.firstTickAt === null) {
      sim.firstTickAt = performance.now(); mark("first-tick");
      if (firstTickWaiter) setTimeout(firstTickWaiter, 0); // the renderer, in its own task
    }
    if (m.marks) m.marks.forEach(function (wm) { // the worker's own marks, on the page's clock
      try { performance.mark("ryvem:" + wm[0], { startTime: wm[1] - performance.timeOrigin }); } catch (err) { /* old browser */ }
    });
    if (sim.worker) port.postMessage({ type: "ack", xy: m.xy }, [m.xy.buffer]);
    else port.postMessage({ type: "ack" });
    if (!m.running && autoFit) fit(1); // the settled picture is framed before settled() says so
    positionsChanged = true;
    // While the time slider moves, new positions wait for it to rest: the frames of a move
    // draw its new instant, not the layout's small steps (the redraw comes SLIDE_REST later).
    if (performance.now() - slidAt < SLIDE_REST) { dirty = true; later(SLIDE_REST); } else schedule();
  }
  (function startSim() {
    if (!earlyWorker) { fallback(); return; }
    var w = earlyWorker;
    w.onmessage = function (ev) { onSimMessage(ev.data); };
    w.onerror = function (ev) { ev.preventDefault(); if (!sim.worker) return; fallback(); };
    port = w; sim.worker = true;
    function fallback() { // the same code on the main thread, in 12 ms slices
      var inner = { postMessage: function (m) { setTimeout(function () { onSimMessage(m); }, 0); } };
      physics(inner);
      port = { postMessage: function (m) { inner.onmessage({ data: m }); } };
      sim.worker = false;
      if (started) { initSim(); pushGraph(1); }
    }
  })();
  var started = false, positionsChanged = true, haveGraph = false;
  function initSim() {
    var seed = new Uint32Array(N);
    for (var i = 0; i < N; i++) seed[i] = fnv1a(ids[i]);
    port.postMessage({ type: "init", n: N, rad: rad, seed: seed, ent: nEnt, rank: rank, params: params });
  }
  function pushGraph(alpha) {
    var la = new Int32Array(nEdgeLive + nEdgeGhost), lb = new Int32Array(la.length), n = 0;
    for (var j = 0; j < nEdgeLive + nEdgeGhost; j++) {
      var a = edgeList[2 * j], b = edgeList[2 * j + 1];
      if (a === b) continue;
      la[n] = a; lb[n] = b; n++;
    }
    sim.seq++; sim.running = true;
    // The arrays are transferred, not copied (a slider move sends one).
    var active = vis.slice(), a2 = la.slice(0, n), b2 = lb.slice(0, n);
    var msg = { type: "graph", active: active, la: a2, lb: b2, alpha: alpha, seq: sim.seq };
    if (sim.worker) port.postMessage(msg, [active.buffer, a2.buffer, b2.buffer]);
    else port.postMessage(msg);
  }
  function reheat(a) {
    sim.seq++; sim.running = true;
    port.postMessage({ type: "params", params: params, alpha: a, seq: sim.seq });
  }

  // ---- filters and the instant -----------------------------------------------------------
  function validAt(f, u) { return instant === null ? u === Infinity : f <= instant && instant < u; }
  function existsAt(f) { return instant === null || f <= instant; }

  var ghostTmp = new Int32Array(0);
  function setText(node, text) { if (node.textContent !== text) node.textContent = text; }
  function recompute(alpha, moved) {
    var kindCount = new Int32Array(S.length), hiddenIdx = new Uint8Array(S.length);
    hiddenKinds.forEach(function (k) { hiddenIdx[kindIdx.get(k)] = 1; });
    var scopeIdx = scopeSel === "*" ? -1 : S.indexOf(scopeSel);
    var i, j;
    // validAt/existsAt inlined as one comparison each: T is the instant, or for "now" a time
    // after every finite end (so f <= T always, and T < u only for an open window).
    var T = instant === null ? Number.MAX_VALUE : instant, hist = showHistory;
    nVis = 0;
    if (visList.length < N) visList = new Int32Array(N);
    for (i = 0; i < N; i++) {
      var ok = scopeIdx < 0 || nScope[i] === scopeIdx;
      var f = nF[i], isLive = f <= T && T < nU[i];
      live[i] = isLive ? 1 : 0;
      var shown = ok && (isLive || (hist && f <= T));
      if (shown) kindCount[nKind[i]]++;
      vis[i] = shown && !hiddenIdx[nKind[i]] ? 1 : 0;
    }
    // Ghosts first, so live nodes draw on top.
    for (i = 0; i < N; i++) if (vis[i] && !live[i]) visList[nVis++] = i;
    nGhostNodes = nVis;
    for (i = 0; i < N; i++) if (vis[i] && live[i]) visList[nVis++] = i;
    // An entity's edges attach to its version valid at the instant, else (History) its newest.
    for (i = 0; i < N; i++) {
      repOf[i] = -1;
      var a = chainStart[i], b = chainStart[i + 1];
      for (var c = b - 1; c >= a; c--) {
        var v = chainOf[c];
        if (live[v]) { repOf[i] = v; break; }
        if (repOf[i] < 0 && hist && nF[v] <= T) repOf[i] = v;
      }
    }
    if (edgeList.length < 2 * M) { edgeList = new Int32Array(2 * M); visEdgeIdx = new Int32Array(M); }
    // One pass in edge order: live edges go straight to the list, ghosts (History) wait in
    // ghostTmp and follow them.
    var n = 0, g = 0;
    if (hist && ghostTmp.length < M) ghostTmp = new Int32Array(M);
    for (var o = 0; o < M; o++) {
      j = edgeOrder[o];
      var ef = eF[j], va, vb, isLiveEdge;
      if (eSup[j]) {
        if (!hist || !(ef <= T)) continue;
        va = eA[j]; vb = eB[j]; isLiveEdge = false;
      } else {
        isLiveEdge = ef <= T && T < eU[j];
        if (!isLiveEdge && !(hist && ef <= T)) continue;
        va = repOf[eA[j]]; vb = repOf[eB[j]];
        if (va < 0 || vb < 0) continue;
      }
      if (!vis[va] || !vis[vb]) continue;
      if (isLiveEdge) { edgeList[2 * n] = va; edgeList[2 * n + 1] = vb; visEdgeIdx[n] = j; n++; }
      else ghostTmp[g++] = j;
    }
    nEdgeLive = n;
    for (var q = 0; q < g; q++) { // a ghost's ends, as above
      j = ghostTmp[q];
      if (eSup[j]) { va = eA[j]; vb = eB[j]; } else { va = repOf[eA[j]]; vb = repOf[eB[j]]; }
      edgeList[2 * n] = va; edgeList[2 * n + 1] = vb; visEdgeIdx[n] = j; n++;
    }
    nEdgeGhost = n - nEdgeLive;
    setText($("counts"), nVis + " nodes · " + n + " edges"); // unchanged text: no relayout
    $("empty").hidden = nVis > 0;
    legendButtons.forEach(function (btn, k) {
      setText(btn.querySelector(".count"), String(kindCount[kindIdx.get(k)]));
      btn.classList.toggle("off", hiddenKinds.has(k));
      btn.setAttribute("aria-pressed", hiddenKinds.has(k) ? "false" : "true");
    });
    // When the instant moves, a selected node follows its entity to the version valid then.
    if (moved && selected >= 0 && !live[selected]) {
      var now = repOf[nEnt[selected]];
      if (now >= 0 && live[now]) selected = now;
    }
    if (selected >= 0 && !vis[selected]) closePanel();
    else if (selected >= 0) select(ids[selected], true);
    stylesDirty = true; edgesDirty = true; haveGraph = true;
    if (started) pushGraph(alpha == null ? 0.3 : alpha);
    schedule();
  }

  // ---- drawing -------------------------------------------------------------------------
  var canvas = $("graph"), overlay = $("overlay"), octx = overlay.getContext("2d");
  var forceCanvas = /(?:^#|&)r=canvas(?:&|$)/.test(location.hash);
  var gl = null, ctx = null, glx = null;
  var stylesDirty = true, edgesDirty = true;

  function readColors() {
    var cs = getComputedStyle(document.documentElement);
    ["bg", "fg", "muted", "edge", "ghost-edge", "accent", "label", "halo"].forEach(function (name) {
      colors[name] = cs.getPropertyValue("--" + name).trim();
    });
    colors.dark = document.documentElement.dataset.theme === "dark";
    stylesDirty = true;
  }
  function kindHsl(k) {
    var c = hue.get(k), light = (colors.dark ? 62 : 47) + 9 * c[1];
    return [c[0], 68 - 8 * c[1], light];
  }
  function kindColor(k) { var c = kindHsl(k); return "hsl(" + c[0] + ", " + c[1] + "%, " + c[2] + "%)"; }
  function hslToRgb(h, s, l) {
    s /= 100; l /= 100;
    var a = s * Math.min(l, 1 - l);
    function f(n) { var k = (n + h / 30) % 12; return Math.round(255 * (l - a * Math.max(-1, Math.min(k - 3, 9 - k, 1)))); }
    return [f(0), f(8), f(4)];
  }
  function parseColor(text) { // rgba(...) or #rrggbb -> [r, g, b, a] in 0..1
    var m = /rgba?\(([^)]+)\)/.exec(text);
    if (m) {
      var p = m[1].split(",").map(function (x) { return Number(x.trim()); });
      return [p[0] / 255, p[1] / 255, p[2] / 255, p.length > 3 ? p[3] : 1];
    }
    m = /^#([0-9a-f]{6})/i.exec(text);
    if (m) { var v = parseInt(m[1], 16); return [(v >> 16) / 255, ((v >> 8) & 255) / 255, (v & 255) / 255, 1]; }
    return [0.5, 0.5, 0.5, 1];
  }

  function initGl() {
    if (forceCanvas) return false;
    var opts = { antialias: false, alpha: false, premultipliedAlpha: false, preserveDrawingBuffer: false };
    gl = canvas.getContext("webgl2", opts) || canvas.getContext("webgl", opts);
    mark("gl-context");
    if (!gl) return false;
    var uint = gl instanceof (window.WebGL2RenderingContext || function () {}) || gl.getExtension("OES_element_index_uint");
    if (!uint) { gl = null; return false; }
    function shader(type, text) {
      var s = gl.createShader(type);
      gl.shaderSource(s, text); gl.compileShader(s);
      if (!gl.getShaderParameter(s, gl.COMPILE_STATUS)) throw new Error(gl.getShaderInfoLog(s));
      return s;
    }
    function program(vs, fs) {
      var p = gl.createProgram();
      gl.attachShader(p, shader(gl.VERTEX_SHADER, vs));
      gl.attachShader(p, shader(gl.FRAGMENT_SHADER, fs));
      gl.bindAttribLocation(p, 0, "pos");
      gl.linkProgram(p);
      if (!gl.getProgramParameter(p, gl.LINK_STATUS)) throw new Error(gl.getProgramInfoLog(p));
      return p;
    }
    var VIEW = "uniform vec2 scale; uniform vec2 shift;\n" +
      "vec4 place(vec2 p) { vec2 s = p * scale + shift; return vec4(s.x * 2.0 - 1.0, 1.0 - s.y * 2.0, 0.0, 1.0); }\n";
    var nodeProg = program(
      "attribute vec2 pos; attribute vec4 color; attribute float size;\n" + VIEW +
      "uniform float k; varying vec4 vColor; varying float vSize;\n" +
      "void main() { gl_Position = place(pos); float px = max(size * k, 1.5); gl_PointSize = 2.0 * px + 1.0;\n" +
      "  vSize = gl_PointSize; vColor = color; }",
      "precision mediump float; varying vec4 vColor; varying float vSize; uniform float cut;\n" +
      "void main() { vec2 c = gl_PointCoord * 2.0 - 1.0; float d = length(c) * vSize * 0.5;\n" +
      "  float r = vSize * 0.5 - 0.5; float a = clamp(r - d + 0.5, 0.0, 1.0); if (a <= cut) discard;\n" +
      "  gl_FragColor = vec4(vColor.rgb, vColor.a * a); }");
    mark("gl-prog1");
    var edgeProg = program(
      "attribute vec2 pos;\n" + VIEW + "void main() { gl_Position = place(pos); }",
      "precision mediump float; uniform vec4 color; void main() { gl_FragColor = color; }");
    mark("gl-prog2");
    glx = {
      nodeProg: nodeProg, edgeProg: edgeProg,
      pos: gl.createBuffer(), color: gl.createBuffer(), size: gl.createBuffer(),
      nodeIdx: gl.createBuffer(), edgeIdx: gl.createBuffer(),
      colorAttr: gl.getAttribLocation(nodeProg, "color"), sizeAttr: gl.getAttribLocation(nodeProg, "size"),
      u: {}
    };
    [["n", nodeProg], ["e", edgeProg]].forEach(function (pp) {
      ["scale", "shift", "k", "color", "cut"].forEach(function (name) {
        glx.u[pp[0] + name] = gl.getUniformLocation(pp[1], name);
      });
    });
    gl.bindBuffer(gl.ARRAY_BUFFER, glx.pos);
    gl.bufferData(gl.ARRAY_BUFFER, pos.byteLength, gl.DYNAMIC_DRAW);
    gl.bindBuffer(gl.ARRAY_BUFFER, glx.size);
    gl.bufferData(gl.ARRAY_BUFFER, rad, gl.STATIC_DRAW);
    gl.bindBuffer(gl.ARRAY_BUFFER, glx.color);
    gl.bufferData(gl.ARRAY_BUFFER, 4 * N, gl.DYNAMIC_DRAW);
    gl.enable(gl.BLEND);
    gl.blendFunc(gl.SRC_ALPHA, gl.ONE_MINUS_SRC_ALPHA);
    return true;
  }
  // The renderer is made in its own task, after the layout worker has the graph (start
  // below): creating a WebGL context waits on the GPU process (10–500 ms here), and the
  // worker's first ticks need not wait for it.
  var renderer = "canvas", drawReady = false;
  // Above 30,000 nodes (the layout's BIG) the first tick takes longer than the context and
  // has no target of its own, so the renderer does not wait for it there.
  var RENDER_WAIT = N > 30000 ? 0 : 400, firstTickWaiter = null;
  function afterFirstTick(fn) {
    if (sim.firstTickAt !== null || !RENDER_WAIT) { setTimeout(fn, 0); return; }
    var timer = setTimeout(go, RENDER_WAIT);
    function go() { clearTimeout(timer); firstTickWaiter = null; fn(); }
    firstTickWaiter = go;
  }
  function initRenderer() {
    if (drawReady) return;
    mark("gl-init");
    try { if (initGl()) renderer = "webgl"; } catch (err) { gl = null; }
    mark("gl-ready");
    if (!gl) {
      // A canvas that had a failed WebGL context cannot give a 2D one: use a fresh canvas.
      if (!forceCanvas) {
        var fresh = canvas.cloneNode(false);
        canvas.parentNode.replaceChild(fresh, canvas);
        canvas = fresh;
      }
      ctx = canvas.getContext("2d");
    }
    drawReady = true;
    schedule();
  }

  var styleBuf = new Uint8Array(4 * N);
  function buildStyles() {
    var rgb = new Map();
    kinds.forEach(function (k) { var c = kindHsl(k); rgb.set(kindIdx.get(k), hslToRgb(c[0], c[1], c[2])); });
    var dim = matches !== null, m = parseColor(colors.muted);
    // A retired version's ghost is drawn in the muted grey, a superseded one's in its kind's
    // colour: History told them apart only in the panel.
    var grey = [Math.round(255 * m[0]), Math.round(255 * m[1]), Math.round(255 * m[2])];
    for (var i = 0; i < N; i++) {
      var retired = !live[i] && nU[i] !== Infinity && status(i) === "retired";
      var c = retired ? grey : rgb.get(nKind[i]), lit = !dim || matches.has(i);
      styleBuf[4 * i] = c[0]; styleBuf[4 * i + 1] = c[1]; styleBuf[4 * i + 2] = c[2];
      styleBuf[4 * i + 3] = Math.round(255 * (lit ? 1 : 0.12) * (live[i] ? 1 : 0.4));
    }
    if (gl) {
      gl.bindBuffer(gl.ARRAY_BUFFER, glx.color);
      gl.bufferSubData(gl.ARRAY_BUFFER, 0, styleBuf);
    }
    stylesDirty = false;
  }

  function resize() {
    dpr = window.devicePixelRatio || 1;
    W = canvas.clientWidth; H = canvas.clientHeight;
    [canvas, overlay].forEach(function (c) {
      c.width = Math.max(1, Math.round(W * dpr));
      c.height = Math.max(1, Math.round(H * dpr));
    });
    schedule();
  }

  function fitK() {
    var x0 = Infinity, y0 = Infinity, x1 = -Infinity, y1 = -Infinity;
    for (var j = 0; j < nVis; j++) {
      var i = visList[j], x = pos[2 * i], y = pos[2 * i + 1], r = rad[i];
      if (x !== x) continue;
      if (x - r < x0) x0 = x - r; if (x + r > x1) x1 = x + r;
      if (y - r < y0) y0 = y - r; if (y + r > y1) y1 = y + r;
    }
    if (x0 === Infinity) return null;
    var k = Math.min(W / (x1 - x0 + 80), H / (y1 - y0 + 80), 2.5);
    return { k: k, x: W / 2 - k * (x0 + x1) / 2, y: H / 2 - k * (y0 + y1) / 2 };
  }
  var fitted = null;
  function fit(lerp) {
    if (!nVis || !W || !H) return;
    var f = fitK();
    if (!f) return;
    fitted = f;
    view.k += (f.k - view.k) * lerp; view.x += (f.x - view.x) * lerp; view.y += (f.y - view.y) * lerp;
  }

  // Level of detail: when the graph is zoomed out past the fitted view, only the most
  // connected edges (up to EDGE_BUDGET, in a fixed order: degree, then index) are drawn; more
  // as the view zooms in, all of them from EDGE_BUDGET_ZOOMED_IN. A software renderer pays
  // per covered pixel, and a zoomed-out hairball's lines are long: at 20,000 of them a frame
  // took seconds under load, which also stalled the compositor (panning) and the slider.
  var EDGE_BUDGET = 5000;
  function edgesToDraw(total) {
    if (total <= EDGE_BUDGET) return total;
    var base = fitted ? fitted.k : view.k, zoom = autoFit ? 1 : view.k / base;
    return Math.min(total, Math.round(EDGE_BUDGET * Math.max(1, zoom * zoom)));
  }
  var drawnEdges = 0, upLive = -1, upGhost = -1;
  // While the time slider is being moved, frames show the nodes at the new instant and no
  // edges (as sigma.js hides edges on move); the edges return SLIDE_REST ms after it stops.
  var SLIDE_REST = 150, slidAt = -1e9, edgesSkipped = false;
  function slidingNow() { edgesSkipped = performance.now() - slidAt < SLIDE_REST; return edgesSkipped; }
  function drawGl() {
    if (stylesDirty) buildStyles();
    var w = canvas.width, h = canvas.height;
    gl.viewport(0, 0, w, h);
    var bg = parseColor(colors.bg);
    gl.clearColor(bg[0], bg[1], bg[2], 1);
    gl.clear(gl.COLOR_BUFFER_BIT);
    if (positionsChanged) {
      gl.bindBuffer(gl.ARRAY_BUFFER, glx.pos);
      gl.bufferSubData(gl.ARRAY_BUFFER, 0, pos);
    }
    if (edgesDirty) {
      gl.bindBuffer(gl.ELEMENT_ARRAY_BUFFER, glx.nodeIdx);
      gl.bufferData(gl.ELEMENT_ARRAY_BUFFER, new Uint32Array(visList.buffer, 0, nVis), gl.DYNAMIC_DRAW);
      upLive = upGhost = -1;
      edgesDirty = false;
    }
    var scale = [view.k / W, view.k / H], shift = [view.x / W, view.y / H]; // layout -> 0..1
    var dim = matches !== null ? 0.12 : 1; // aliased GL lines cover whole pixels: dim as much as nodes
    // edges
    gl.useProgram(glx.edgeProg);
    gl.uniform2fv(glx.u.escale, scale); gl.uniform2fv(glx.u.eshift, shift);
    gl.bindBuffer(gl.ARRAY_BUFFER, glx.pos);
    gl.enableVertexAttribArray(0);
    gl.vertexAttribPointer(0, 2, gl.FLOAT, false, 0, 0);
    gl.bindBuffer(gl.ELEMENT_ARRAY_BUFFER, glx.edgeIdx);
    var liveN = edgesToDraw(nEdgeLive), ghostN = edgesToDraw(nEdgeGhost);
    if (slidingNow()) liveN = ghostN = 0;
    // Only the edges a frame draws go to the GPU (the first liveN live ones, then the first
    // ghostN ghosts): 5,000 pairs zoomed out instead of all 300,000 (2.4 MB) on every
    // recompute; more are sent when zooming in asks for more.
    if (liveN > upLive || ghostN > upGhost) {
      upLive = Math.max(liveN, upLive, 0); upGhost = Math.max(ghostN, upGhost, 0);
      var idx = new Uint32Array(2 * (upLive + upGhost));
      idx.set(new Uint32Array(edgeList.buffer, 0, 2 * upLive));
      idx.set(new Uint32Array(edgeList.buffer, 8 * nEdgeLive, 2 * upGhost), 2 * upLive);
      gl.bufferData(gl.ELEMENT_ARRAY_BUFFER, idx, gl.DYNAMIC_DRAW);
    }
    var thin = Math.min(1, Math.max(0.35, view.k * 1.5)); // fainter when zoomed out
    var ec = parseColor(colors.edge), gc = parseColor(colors["ghost-edge"]);
    // Blending costs a software renderer a read per pixel: lines are drawn opaque, in their
    // colour already mixed with the background (overlaps do not darken), unless dimmed.
    function edgeColor(c, a) {
      if (dim < 1) { gl.enable(gl.BLEND); gl.uniform4f(glx.u.ecolor, c[0], c[1], c[2], a); return; }
      gl.disable(gl.BLEND);
      gl.uniform4f(glx.u.ecolor, bg[0] + (c[0] - bg[0]) * a, bg[1] + (c[1] - bg[1]) * a, bg[2] + (c[2] - bg[2]) * a, 1);
    }
    edgeColor(ec, ec[3] * dim * thin);
    if (liveN) gl.drawElements(gl.LINES, 2 * liveN, gl.UNSIGNED_INT, 0);
    edgeColor(gc, gc[3] * dim * thin * 0.8);
    if (ghostN) gl.drawElements(gl.LINES, 2 * ghostN, gl.UNSIGNED_INT, 8 * upLive);
    // Nodes blend only when some are translucent (ghosts, a search dimming the rest).
    var blendNodes = matches !== null || nGhostNodes > 0;
    if (blendNodes) gl.enable(gl.BLEND); else gl.disable(gl.BLEND);
    drawnEdges = liveN + ghostN;
    // nodes
    gl.useProgram(glx.nodeProg);
    gl.uniform2fv(glx.u.nscale, scale); gl.uniform2fv(glx.u.nshift, shift);
    gl.uniform1f(glx.u.nk, view.k * dpr);
    gl.uniform1f(glx.u.ncut, blendNodes ? 0 : 0.5); // opaque discs: a hard edge at half cover
    gl.bindBuffer(gl.ARRAY_BUFFER, glx.color);
    gl.enableVertexAttribArray(glx.colorAttr);
    gl.vertexAttribPointer(glx.colorAttr, 4, gl.UNSIGNED_BYTE, true, 0, 0);
    gl.bindBuffer(gl.ARRAY_BUFFER, glx.size);
    gl.enableVertexAttribArray(glx.sizeAttr);
    gl.vertexAttribPointer(glx.sizeAttr, 1, gl.FLOAT, false, 0, 0);
    gl.bindBuffer(gl.ELEMENT_ARRAY_BUFFER, glx.nodeIdx);
    if (nVis) gl.drawElements(gl.POINTS, nVis, gl.UNSIGNED_INT, 0);
    gl.disableVertexAttribArray(glx.colorAttr);
    gl.disableVertexAttribArray(glx.sizeAttr);
  }

  function draw2d() {
    if (stylesDirty) buildStyles();
    edgesDirty = false;
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    ctx.fillStyle = colors.bg;
    ctx.fillRect(0, 0, W, H);
    ctx.setTransform(dpr * view.k, 0, 0, dpr * view.k, dpr * view.x, dpr * view.y);
    var px = 1 / view.k, dim = matches !== null;
    ctx.lineWidth = px;
    function stroke(from, count, style, dash) {
      if (!count) return;
      ctx.beginPath();
      for (var j = from; j < from + count; j++) {
        var a = edgeList[2 * j], b = edgeList[2 * j + 1];
        ctx.moveTo(pos[2 * a], pos[2 * a + 1]); ctx.lineTo(pos[2 * b], pos[2 * b + 1]);
      }
      ctx.globalAlpha = dim ? 0.25 : 1;
      ctx.strokeStyle = style;
      ctx.setLineDash(dash ? [4 * px, 3 * px] : []);
      ctx.stroke();
      ctx.setLineDash([]);
      ctx.globalAlpha = 1;
    }
    var liveN = edgesToDraw(nEdgeLive), ghostN = edgesToDraw(nEdgeGhost);
    if (slidingNow()) liveN = ghostN = 0;
    stroke(0, liveN, colors.edge, false);
    stroke(nEdgeLive, ghostN, colors["ghost-edge"], true);
    drawnEdges = liveN + ghostN;
    // nodes, grouped by colour and alpha (styleBuf: the WebGL path's colours, a retired
    // ghost's grey included)
    var groups = new Map();
    for (var j = 0; j < nVis; j++) {
      var i = visList[j], b = 4 * i;
      var key = ((styleBuf[b] << 16) | (styleBuf[b + 1] << 8) | styleBuf[b + 2]) * 256 + styleBuf[b + 3];
      var g = groups.get(key);
      if (!g) groups.set(key, g = []);
      g.push(i);
    }
    groups.forEach(function (list, key) {
      var rgb = Math.floor(key / 256);
      ctx.beginPath();
      for (var q = 0; q < list.length; q++) {
        var n = list[q], x = pos[2 * n], y = pos[2 * n + 1], r = rad[n];
        if (r * view.k < 1.5) { r = 1.5 * px; ctx.rect(x - r, y - r, 2 * r, 2 * r); } else { ctx.moveTo(x + r, y); ctx.arc(x, y, r, 0, 2 * Math.PI); }
      }
      ctx.globalAlpha = (key % 256) / 255;
      ctx.fillStyle = "rgb(" + (rgb >> 16) + ", " + ((rgb >> 8) & 255) + ", " + (rgb & 255) + ")";
      ctx.fill();
    });
    ctx.globalAlpha = 1;
  }

  // The overlay is redrawn at every frame the view moves, so it is skipped while it is blank
  // and would stay blank (zoomed out, nothing selected or hovered): panning a big graph
  // then costs the compositor's transform of the last picture and nothing else.
  var overlayBlank = true, maxRad = 0;
  for (var m0 = 0; m0 < N; m0++) if (rad[m0] > maxRad) maxRad = rad[m0];
  function drawOverlay() {
    var some = (selected >= 0 && vis[selected]) || (hovered >= 0 && vis[hovered]) ||
      view.k >= 1.1 || maxRad * view.k >= 9;
    if (!some && overlayBlank) return;
    overlayBlank = !some;
    octx.setTransform(dpr, 0, 0, dpr, 0, 0);
    octx.clearRect(0, 0, W, H);
    octx.setTransform(dpr * view.k, 0, 0, dpr * view.k, dpr * view.x, dpr * view.y);
    var px = 1 / view.k;
    if (selected >= 0 && vis[selected]) { // the selected node's edges, highlighted
      octx.beginPath();
      var any = false;
      for (var j = 0; j < nEdgeLive + nEdgeGhost; j++) {
        var a = edgeList[2 * j], b = edgeList[2 * j + 1];
        if (a !== selected && b !== selected) continue;
        octx.moveTo(pos[2 * a], pos[2 * a + 1]); octx.lineTo(pos[2 * b], pos[2 * b + 1]); any = true;
      }
      if (any) { octx.globalAlpha = 0.9; octx.lineWidth = 2 * px; octx.strokeStyle = colors.accent; octx.stroke(); octx.globalAlpha = 1; }
    }
    [hovered, selected].forEach(function (n, i) {
      if (n < 0 || !vis[n]) return;
      octx.beginPath();
      octx.arc(pos[2 * n], pos[2 * n + 1], Math.max(rad[n], 1.5 * px) + 3 * px, 0, 2 * Math.PI);
      octx.lineWidth = (i ? 2.5 : 1.5) * px;
      octx.strokeStyle = i ? colors.accent : colors.fg;
      octx.stroke();
    });
    drawLabels();
  }

  var labelsDrawn = 0;
  function drawLabels() {
    octx.setTransform(dpr, 0, 0, dpr, 0, 0);
    octx.font = "12px system-ui, sans-serif";
    octx.textAlign = "center";
    octx.textBaseline = "top";
    octx.lineWidth = 3;
    octx.strokeStyle = colors.halo;
    octx.fillStyle = colors.label;
    var drawn = 0, k = view.k, seen = 0;
    function label(n) {
      var sx = pos[2 * n] * k + view.x, sy = (pos[2 * n + 1] + rad[n]) * k + view.y + 3;
      if (sx < -200 || sx > W + 200 || sy < -20 || sy > H + 20) return;
      var t = titles[n], text = t.length > 48 ? t.slice(0, 47) + "…" : t;
      octx.strokeText(text, sx, sy); octx.fillText(text, sx, sy);
      drawn++;
    }
    // Level of detail: labels only for nodes big enough on screen, at most 250, and the
    // scan stops early so a zoomed-out 100k graph costs nothing here.
    for (var i = 0; i < N && drawn < 250 && seen < 20000; i++) {
      var n = labelOrder[i];
      if (!vis[n] || n === selected || n === hovered) continue;
      if (matches !== null && !matches.has(n)) continue;
      seen++;
      if (k >= 1.1 || rad[n] * k >= 9) label(n);
    }
    if (selected >= 0 && vis[selected]) label(selected);
    if (hovered >= 0 && vis[hovered] && hovered !== selected) label(hovered);
    labelsDrawn = drawn;
  }

  var drawn = { x: 0, y: 0, k: 1 }, shownTransform = "";
  function draw() {
    if (!drawReady) initRenderer(); // a test hook's call can come before the renderer's task
    if (gl) drawGl(); else draw2d();
    positionsChanged = false;
    drawOverlay();
    drawn.x = view.x; drawn.y = view.y; drawn.k = view.k;
    dirty = false;
    applyTransform();
  }
  // Between two drawings the last picture is moved and scaled by the compositor (a CSS
  // transform), so panning and zooming never wait for a redraw of 100,000 nodes; the
  // overlay (labels, rings) is cheap and is drawn at the current view every frame.
  function applyTransform() {
    var t = "";
    if (drawn.x !== view.x || drawn.y !== view.y || drawn.k !== view.k) {
      var sc = view.k / drawn.k;
      t = "translate(" + (view.x - drawn.x * sc) + "px, " + (view.y - drawn.y * sc) + "px) scale(" + sc + ")";
    }
    if (t !== shownTransform) {
      shownTransform = t;
      canvas.style.transform = t;
    }
  }

  // ---- the frame loop ------------------------------------------------------------------
  // A redraw waits while the user pans or zooms (150 ms), while the GPU is still busy with
  // the last one (a WebGL2 fence), and for as long as the last one took, so a slow
  // (software) renderer gets at most half of the time and the page stays responsive.
  var raf = 0, frames = 0, firstFrameAt = null, dirty = true, timer = 0;
  var lastInteraction = -1e9, nextDrawAt = 0, fence = null, fenceAt = 0, cpuCost = 0;
  function schedule() { dirty = true; if (!raf) raf = requestAnimationFrame(frame); }
  // Rings, labels and the selection's edges only (hover, select): the big picture stays.
  function scheduleOverlay() { if (!raf) raf = requestAnimationFrame(frame); }
  function later(ms) {
    if (timer) return;
    timer = setTimeout(function () { timer = 0; if (!raf) raf = requestAnimationFrame(frame); }, ms);
  }
  function interacted() { lastInteraction = performance.now(); }
  function gpuBusy(now) {
    if (!fence) return false;
    if (gl.getSyncParameter(fence, gl.SYNC_STATUS) !== gl.SIGNALED) return true;
    gl.deleteSync(fence); fence = null;
    // as long again (twice while laying out), but the picture moves at least once a second
    nextDrawAt = now + Math.min(1000, (sim.running ? 2 : 1) * ((now - fenceAt) + cpuCost));
    return false;
  }
  function frame() {
    raf = 0;
    if (!haveGraph || !drawReady) return; // nothing to draw before the first recompute
    if (playing) stepPlay();
    if (autoFit) fit(sim.running && frames > 0 ? 0.15 : 1);
    var now = performance.now();
    if (playing || (autoFit && sim.running)) schedule();
    if (!dirty) { applyTransform(); drawOverlay(); return; }
    if (firstFrameAt === null) { render(now); return; } // the first picture never waits
    var wait = 0;
    // While the background is held down (a pan) nothing is redrawn: the last picture moves
    // by its CSS transform, and a redraw (which can hold the main thread while a software
    // renderer finishes the previous one) would delay the very pointer events of the pan.
    if (drag && drag.node < 0) wait = 150;
    else if (now - lastInteraction < 150) wait = 150 - (now - lastInteraction);
    else if (gpuBusy(now)) wait = 16;
    else if (now < nextDrawAt) wait = nextDrawAt - now;
    if (wait > 0) { applyTransform(); drawOverlay(); later(wait); return; }
    render(now);
  }
  function render(now) {
    draw();
    if (edgesSkipped) { dirty = true; later(SLIDE_REST); }
    var end = performance.now();
    cpuCost = end - now;
    sim.drawMs = cpuCost;
    nextDrawAt = end + cpuCost;
    if (gl && gl.fenceSync) {
      if (fence) gl.deleteSync(fence);
      fence = gl.fenceSync(gl.SYNC_GPU_COMMANDS_COMPLETE, 0);
      fenceAt = end;
      gl.flush();
    }
    frames++;
    if (firstFrameAt === null && nVis > 0 && !isNaN(pos[2 * visList[0]])) { firstFrameAt = end; mark("first-frame"); }
  }

  // ---- the node panel --------------------------------------------------------------
  function status(i) {
    if (nU[i] === Infinity) return "current";
    return reasonOf.has(i) || nSb[i] < 0 ? "retired" : "superseded";
  }
  function statusAt(i) {
    if (instant !== null && validAt(nF[i], nU[i])) return "valid then";
    return status(i);
  }
  function when(us) { return iso(us).replace("T", " ").replace(/\.\d+Z$/, "Z"); }
  function openWord() { return AS_OF === null ? "now" : "still open at " + when(AS_OF); }
  function nowLabel() { return AS_OF === null ? "now" : "as of " + when(AS_OF); }
  function el(tag, cls, text) {
    var e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text != null) e.textContent = text;
    return e;
  }
  function overlaps(j, n) { // does edge j belong with version n?
    // A live node's connections are its edges valid at the instant to nodes live then, as
    // `ryvem graph links` walks them (a retired node's edges stay open, to return on revival).
    if (live[n]) {
      var other = eA[j] === nEnt[n] ? eB[j] : eA[j];
      return showHistory ? existsAt(eF[j]) : validAt(eF[j], eU[j]) && repOf[other] >= 0;
    }
    return eF[j] < nU[n] && eU[j] > nF[n];
  }
  function shownVersion(ent) { var r = repOf[ent]; return r >= 0 ? r : headOf[ent]; }

  function select(id, keepScroll) {
    var n = byId.get(id);
    if (n === undefined) return;
    selected = n;
    var meta = $("p-meta");
    meta.textContent = "";
    var st = statusAt(n);
    meta.appendChild(el("span", "tag " + st.replace(" ", "-"), st));
    if (erasedOf.has(n)) meta.appendChild(el("span", "tag erased", erasedOf.get(n)));
    meta.appendChild(document.createTextNode(S[nKind[n]] + " · " + S[nScope[n]] + (keys[n] != null ? " · " + keys[n] : "")));
    var span = el("span", "when", "valid " + when(nF[n]) + " → " + (nU[n] !== Infinity ? when(nU[n]) : openWord())
      + (recOf.has(n) ? " · recorded " + when(nF[n] + recOf.get(n)) : ""));
    meta.appendChild(span);
    $("p-title").textContent = titles[n];
    var body = $("p-body"), html = bodyHtml(n);
    body.innerHTML = html; // rendered at export time with raw HTML disabled and safe links only
    if (!html) {
      var missing = nU[n] !== Infinity && !historyBodies;
      body.appendChild(el("p", "muted", !bodiesReady ? "(loading…)" : missing
        ? "(the body of a past version is not in this file: export with --with-history-bodies)"
        : erasedOf.get(n) === "purged" ? "(content erased by a purge)" : "(no body)"));
    }
    if (reasonOf.has(n)) body.appendChild(el("p", "muted", "Retired: " + reasonOf.get(n)));
    var data = $("p-data"), pairs = dataPairs(n);
    data.textContent = "";
    pairs.forEach(function (pair) { data.appendChild(el("dt", "", pair[0])); data.appendChild(el("dd", "", pair[1])); });
    $("p-data-h").hidden = data.hidden = pairs.length === 0;
    var conn = $("p-connections"), ent = nEnt[n];
    conn.textContent = "";
    for (var j = 0; j < M; j++) {
      if (eSup[j] || (eA[j] !== ent && eB[j] !== ent) || !overlaps(j, n)) continue;
      var out = eA[j] === ent, other = shownVersion(out ? eB[j] : eA[j]);
      var li = el("li"), btn = el("button"), ended = !validAt(eF[j], eU[j]);
      btn.type = "button";
      btn.dataset.id = ids[other];
      btn.appendChild(el("span", "rel", (out ? "→ " : "← ") + S[eRel[j]] + (ended ? " (ended)" : "")));
      btn.appendChild(document.createTextNode(" " + titles[other]));
      if (edgeData.has(j)) btn.appendChild(el("span", "edge-data", edgeData.get(j).map(function (p) {
        return p[0] + ": " + p[1];
      }).join(", ")));
      btn.title = S[nKind[other]] + " · " + S[nScope[other]];
      li.appendChild(btn);
      conn.appendChild(li);
    }
    if (!conn.children.length) conn.appendChild(el("li", "muted", "none"));
    var hist = $("p-history"), versions = chain(ent);
    hist.textContent = "";
    $("p-history-h").hidden = hist.hidden = versions.length < 2;
    versions.forEach(function (v) {
      var li = el("li", v === n ? "at" : ""), b = el("button"), s = status(v);
      b.type = "button";
      b.dataset.id = ids[v];
      b.appendChild(el("span", "tag " + s, s));
      b.appendChild(document.createTextNode(titles[v]));
      var t = el("time", "", when(nF[v]) + " → " + (nU[v] !== Infinity ? when(nU[v]) : openWord()));
      t.dateTime = iso(nF[v]);
      b.appendChild(t);
      li.appendChild(b);
      hist.appendChild(li);
    });
    $("panel").hidden = false;
    if (!keepScroll) $("panel").scrollTop = 0;
    scheduleOverlay();
  }
  function closePanel() {
    selected = -1;
    $("panel").hidden = true;
    scheduleOverlay();
  }

  function centreOn(n) {
    view.k = Math.max(view.k, 1);
    view.x = W / 2 - pos[2 * n] * view.k;
    view.y = H / 2 - pos[2 * n + 1] * view.k;
    autoFit = false;
    lastCentred = ids[n];
    schedule();
  }

  function navigate(id) {
    var n = byId.get(id);
    if (n === undefined) return;
    var changed = false;
    if (!existsAt(nF[n])) { setInstantValue(null, false); changed = true; }
    if (!validAt(nF[n], nU[n]) && !showHistory) { showHistory = true; $("history").checked = true; changed = true; }
    var k = S[nKind[n]];
    if (hiddenKinds.has(k)) { hiddenKinds.delete(k); changed = true; }
    if (scopeSel !== "*" && scopeSel !== S[nScope[n]]) { scopeSel = "*"; $("scope").value = "*"; changed = true; }
    if (changed) recompute();
    select(id);
    centreOn(n);
  }

  function onPanelClick(ev) {
    var target = ev.target.closest("button[data-id], a.wikilink[data-entity]");
    if (!target) return;
    if (target.tagName === "A") {
      ev.preventDefault();
      var ent = entityByName(target.dataset.entity);
      if (ent !== undefined) navigate(ids[shownVersion(ent)]);
      return;
    }
    navigate(target.dataset.id);
  }

  // ---- search ----------------------------------------------------------------------
  var lowerTitles = null, lowerKeys = null;
  function wordEnd(text, at) { return at >= text.length || !/[0-9a-z]/i.test(text.charAt(at)); }
  function score(n, q) {
    var t = lowerTitles[n], key = lowerKeys[n], at = t.indexOf(q);
    if (t === q) return 100;
    if (key === q) return 90;
    if (at === 0) return wordEnd(t, q.length) ? 85 : 80;
    if (at > 0) return wordEnd(t, at + q.length) ? 65 : 60;
    if (key.indexOf(q) >= 0) return 50;
    if (S[nKind[n]] === q || ids[n] === q) return 40;
    return 0;
  }
  var searchJob = 0;
  function runSearch() {
    var q = $("search").value.trim().toLowerCase();
    matchQuery = q;
    searchJob++;
    if (!q) { matches = null; stylesDirty = true; schedule(); return; }
    if (!lowerTitles) {
      lowerTitles = titles.map(function (t) { return t.toLowerCase(); });
      lowerKeys = keys.map(function (k) { return (k || "").toLowerCase(); });
    }
    matches = new Map();
    for (var n = 0; n < N; n++) { var s = score(n, q); if (s > 0) matches.set(n, s); }
    stylesDirty = true;
    schedule();
    // Bodies are matched block by block in short slices, so typing never stalls the page.
    var job = searchJob, from = 0, mine = matches;
    function slice() {
      if (job !== searchJob) return;
      var t0 = performance.now();
      while (from < N && performance.now() - t0 < 8) {
        var end = Math.min(N, from + BODY_CHUNK);
        for (var i = from; i < end; i++) if (!mine.has(i) && bodyText(i).indexOf(q) >= 0) mine.set(i, 10);
        from = end;
      }
      stylesDirty = true; schedule();
      if (from < N) setTimeout(slice, 0);
    }
    if (N <= 20 * BODY_CHUNK) { from = 0; while (from < N) { for (var i = from, e = Math.min(N, from + BODY_CHUNK); i < e; i++) if (!mine.has(i) && bodyText(i).indexOf(q) >= 0) mine.set(i, 10); from += BODY_CHUNK; } }
    else setTimeout(slice, 0);
  }
  function bestMatch() {
    if (!matches) return -1;
    var best = -1, bestScore = -1;
    matches.forEach(function (s, n) {
      if (!vis[n]) return;
      var r = s * 1000 + Math.min(deg[n], 999) + (nU[n] === Infinity ? 0.5 : 0);
      if (r > bestScore || (r === bestScore && ids[n] < ids[best])) { best = n; bestScore = r; }
    });
    return best;
  }
  function clearSearch() {
    $("search").value = "";
    matches = null; matchQuery = ""; searchJob++;
    stylesDirty = true;
    schedule();
  }

  // ---- pointer: drag a node, pan, zoom, click -------------------------------------------
  function toWorld(sx, sy) { return { x: (sx - view.x) / view.k, y: (sy - view.y) / view.k }; }
  function nodeAt(sx, sy) {
    var w = toWorld(sx, sy), best = -1, bestD = Infinity;
    for (var j = 0; j < nVis; j++) {
      var n = visList[j], dx = pos[2 * n] - w.x, dy = pos[2 * n + 1] - w.y, d = dx * dx + dy * dy;
      var reach = Math.max(rad[n], 5 / view.k) + 2 / view.k;
      if (d <= reach * reach && d <= bestD) { best = n; bestD = d; }
    }
    return best;
  }
  var drag = null;
  function local(ev) { var r = overlay.getBoundingClientRect(); return { x: ev.clientX - r.left, y: ev.clientY - r.top }; }
  overlay.addEventListener("pointerdown", function (ev) {
    if (ev.button !== 0) return;
    var p = local(ev), n = nodeAt(p.x, p.y);
    overlay.setPointerCapture(ev.pointerId);
    drag = { node: n, x: p.x, y: p.y, moved: false, vx: view.x, vy: view.y };
  });
  overlay.addEventListener("pointermove", function (ev) {
    var p = local(ev);
    if (!drag) {
      var h = nodeAt(p.x, p.y);
      if (h !== hovered) { hovered = h; overlay.classList.toggle("over-node", h >= 0); scheduleOverlay(); }
      return;
    }
    if (!drag.moved && Math.abs(p.x - drag.x) + Math.abs(p.y - drag.y) > 3) {
      drag.moved = true;
      autoFit = false;
      overlay.classList.add("dragging");
      if (drag.node >= 0) {
        dragFix = drag.node;
        sim.seq++; sim.running = true;
        port.postMessage({ type: "fix", i: drag.node, x: pos[2 * drag.node], y: pos[2 * drag.node + 1], alphaTarget: 0.3, alpha: 0.3, seq: sim.seq });
      }
    }
    if (!drag.moved) return;
    if (drag.node >= 0) {
      var w = toWorld(p.x, p.y);
      dragX = w.x; dragY = w.y;
      pos[2 * drag.node] = w.x; pos[2 * drag.node + 1] = w.y; positionsChanged = true;
      port.postMessage({ type: "fix", i: drag.node, x: w.x, y: w.y });
    } else {
      view.x = drag.vx + p.x - drag.x; view.y = drag.vy + p.y - drag.y;
      interacted();
    }
    schedule();
  });
  function endDrag() {
    if (!drag) return;
    var d = drag;
    drag = null;
    overlay.classList.remove("dragging");
    if (d.node >= 0) {
      if (!d.moved) { select(ids[d.node]); return; }
      dragFix = -1;
      sim.seq++; sim.running = true;
      port.postMessage({ type: "fix", i: d.node, x: NaN, y: NaN, alphaTarget: 0, alpha: 0.1, seq: sim.seq });
    } else if (!d.moved) {
      closePanel();
    }
  }
  overlay.addEventListener("pointerup", endDrag);
  overlay.addEventListener("pointercancel", endDrag);
  overlay.addEventListener("pointerleave", function () { if (hovered >= 0) { hovered = -1; scheduleOverlay(); } });
  overlay.addEventListener("wheel", function (ev) {
    ev.preventDefault();
    var p = local(ev), w = toWorld(p.x, p.y);
    var k = Math.min(8, Math.max(0.002, view.k * Math.exp(-ev.deltaY * 0.0015)));
    view.k = k; view.x = p.x - w.x * k; view.y = p.y - w.y * k;
    autoFit = false;
    interacted();
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

  // ---- the time slider -----------------------------------------------------------------
  var instants = null; // every distinct moment a version or an edge began or ended
  function timeline() {
    if (instants) return instants;
    var all = new Float64Array(2 * N + 2 * M), n = 0, i;
    for (i = 0; i < N; i++) { all[n++] = nF[i]; if (nU[i] !== Infinity) all[n++] = nU[i]; }
    for (i = 0; i < M; i++) { all[n++] = eF[i]; if (eU[i] !== Infinity) all[n++] = eU[i]; }
    all = all.subarray(0, n).sort();
    var out = new Float64Array(n), m = 0;
    for (i = 0; i < n; i++) if (i === 0 || all[i] !== all[i - 1]) out[m++] = all[i];
    instants = out.subarray(0, m);
    return instants;
  }
  var range = $("t-range"), tLabel = $("t-label"), playBtn = $("t-play"), speedSel = $("t-speed");
  if (AS_OF !== null || KNOWN_AT !== null) { // a snapshot says so in the bar, not only the tab
    var snap = el("span", "", "snapshot" + (AS_OF !== null ? " · as of " + when(AS_OF) : "")
      + (KNOWN_AT !== null ? " · as known at " + when(KNOWN_AT) : ""));
    snap.id = "snapshot";
    $("bar").insertBefore(snap, $("search"));
  }
  var playing = false, playPos = 0, playLast = 0;
  function indexOfInstant(t) { // the last instant <= t
    var a = timeline(), lo = 0, hi = a.length - 1;
    if (t === null || !a.length) return a.length - 1;
    if (t < a[0]) return 0;
    while (lo < hi) { var mid = (lo + hi + 1) >> 1; if (a[mid] <= t) lo = mid; else hi = mid - 1; }
    return lo;
  }
  function showInstant() {
    var a = timeline();
    range.max = String(Math.max(0, a.length - 1));
    range.value = String(indexOfInstant(instant));
    tLabel.textContent = instant === null ? nowLabel() : when(instant);
    tLabel.title = instant === null ? "" : iso(instant);
    document.documentElement.classList.toggle("past", instant !== null);
  }
  // The fragment is written once the instant has rested SLIDE_REST ms: history.replaceState
  // took 0.5–12 ms of a slider move at 10k (a same-document navigation), and Chromium
  // throttles a page that calls it hundreds of times, as a replay would.
  var fragmentTimer = 0;
  function fragmentLater() {
    if (fragmentTimer) clearTimeout(fragmentTimer);
    fragmentTimer = setTimeout(function () { fragmentTimer = 0; writeFragment(); }, SLIDE_REST);
  }
  function writeFragment() {
    var base = location.href.split("#")[0];
    var keep = (location.hash.match(/(?:^#|&)(r=canvas|w=main)(?=&|$)/g) || [])
      .map(function (x) { return x.replace(/^[#&]/, ""); }).join("&");
    var frag = instant === null ? keep : (keep ? keep + "&" : "") + "t=" + iso(instant);
    try { history.replaceState(null, "", frag ? base + "#" + frag : base); } catch (err) { /* a sandboxed page */ }
  }
  function setInstantValue(t, redraw) {
    var a = timeline();
    if (t !== null && a.length && t >= a[a.length - 1]) t = null; // the last change is now
    instant = t;
    showInstant();
    fragmentLater();
    if (redraw !== false) { recompute(playing ? PLAY_ALPHA : 0, true); relaxLater(); }
  }
  // A move of the time slider does not reheat the layout: the worker places the new nodes
  // beside a neighbour (physics.js place()) in one tick and stops. A reheat (0.3 before) kept
  // a core busy with ticks and the page redrawing during the very frames of the move (10k:
  // 180–220 ms for a move and its two frames, against 30–80 ms). Once the slider has rested
  // SLIDE_REST ms the layout relaxes the new arrivals; a replay (▶) reheats a little at
  // each step instead, as it never rests.
  var PLAY_ALPHA = 0.05, RELAX_ALPHA = 0.1, relaxTimer = 0;
  function relaxLater() {
    if (relaxTimer) clearTimeout(relaxTimer);
    relaxTimer = setTimeout(function () { relaxTimer = 0; reheat(RELAX_ALPHA); }, SLIDE_REST);
  }
  range.addEventListener("input", function () {
    stopPlay();
    slidAt = performance.now();
    var a = timeline(), i = Number(range.value);
    setInstantValue(i >= a.length - 1 ? null : a[i]);
  });
  var SPEEDS = [1, 10, 100, 1000, 10000];
  SPEEDS.forEach(function (s) { var o = el("option", "", s + " changes/s"); o.value = String(s); speedSel.appendChild(o); });
  function defaultSpeed() { // about a 30-second replay
    var want = timeline().length / 30, best = SPEEDS[0];
    SPEEDS.forEach(function (s) { if (s <= want) best = s; });
    return best;
  }
  function stopPlay() { playing = false; playBtn.textContent = "▶"; playBtn.setAttribute("aria-label", "Play"); }
  playBtn.addEventListener("click", function () {
    if (playing) { stopPlay(); return; }
    var a = timeline();
    if (!a.length) return;
    playing = true; playBtn.textContent = "⏸"; playBtn.setAttribute("aria-label", "Pause");
    playPos = instant === null ? 0 : indexOfInstant(instant);
    if (instant === null) setInstantValue(a[0]);
    playLast = performance.now();
    schedule();
  });
  function stepPlay() {
    var now = performance.now(), a = timeline();
    playPos += (now - playLast) / 1000 * Number(speedSel.value);
    playLast = now;
    var i = Math.floor(playPos);
    if (i >= a.length - 1) { stopPlay(); setInstantValue(null); return; }
    if (a[i] !== instant) setInstantValue(a[i]);
  }
  window.addEventListener("hashchange", function () {
    var t = fragmentInstant();
    if (t !== instant) setInstantValue(t);
  });
  function fragmentInstant() {
    var m = /(?:^#|&)t=([^&]+)/.exec(location.hash);
    if (!m) return null;
    var t = parseIso(decodeURIComponent(m[1]));
    return isNaN(t) ? null : t;
  }

  // ---- theme ---------------------------------------------------------------------------
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
      if (best >= 0) { select(ids[best]); centreOn(best); }
    } else if (ev.key === "Escape") {
      ev.preventDefault();
      clearSearch();
      search.blur();
    }
  });
  document.addEventListener("keydown", function (ev) {
    // Typing is text entry: a slider, a checkbox or a select holding the focus is not.
    var tag = (ev.target && ev.target.tagName) || "";
    var typing = tag === "TEXTAREA" || (tag === "INPUT" && !/^(range|checkbox|radio|button)$/.test(ev.target.type));
    if (ev.key === "/" && !typing) { ev.preventDefault(); search.focus(); search.select(); }
    else if (ev.key === "Escape" && !typing) { if (matches) clearSearch(); else closePanel(); }
  });
  window.addEventListener("resize", resize);
  if (!bodiesReady) {
    document.addEventListener("DOMContentLoaded", function () {
      bodiesReady = true;
      mark("bodies");
      if (selected >= 0) select(ids[selected], true);
      if (matchQuery) runSearch();
    });
  }

  // ---- the test hook (read-only) ----------------------------------------------------------
  function screenPos(id) {
    var n = byId.get(id);
    if (n === undefined || !vis[n]) return null;
    var r = overlay.getBoundingClientRect();
    return { x: r.left + pos[2 * n] * view.k + view.x, y: r.top + pos[2 * n + 1] * view.k + view.y, r: rad[n] * view.k };
  }
  function pixel(id) { // RGBA of the graph layer at a node's centre (drawn now, then read)
    var p = screenPos(id);
    if (!p) return null;
    var r = overlay.getBoundingClientRect();
    var x = Math.round((p.x - r.left) * dpr), y = Math.round((p.y - r.top) * dpr);
    if (autoFit) fit(sim.running ? 0.15 : 1);
    if (gl) {
      draw();
      var out = new Uint8Array(4);
      gl.readPixels(x, canvas.height - 1 - y, 1, 1, gl.RGBA, gl.UNSIGNED_BYTE, out);
      return Array.from(out);
    }
    draw();
    return Array.from(ctx.getImageData(x, y, 1, 1).data);
  }
  function counts() { return { nodes: nVis, edges: nEdgeLive + nEdgeGhost }; }
  window.__ryvem = Object.freeze({
    version: 2,
    counts: counts,
    totals: function () { return { nodes: N, edges: M }; },
    selected: function () { return selected >= 0 ? ids[selected] : null; },
    sim: function () {
      return { alpha: sim.alpha, running: !settled(), ticks: sim.ticks, params: Object.assign({}, params),
        defaults: Object.assign({}, DEFAULTS), lastTickMs: sim.tickMs, lastDrawMs: sim.drawMs,
        worker: sim.worker };
    },
    settled: settled,
    view: function () { return { x: view.x, y: view.y, k: view.k }; },
    screenPos: screenPos,
    edges: function () { // the edges drawn, live then ghosts: {from, to (version ids), rel, live}
      var out = [];
      for (var n = 0; n < nEdgeLive + nEdgeGhost; n++) {
        out.push({ from: ids[edgeList[2 * n]], to: ids[edgeList[2 * n + 1]], rel: S[eRel[visEdgeIdx[n]]], live: n < nEdgeLive });
      }
      return out;
    },
    visibleIds: function () { return Array.from(visList.subarray(0, nVis)).sort(function (a, b) { return a - b; }).map(function (i) { return ids[i]; }); },
    positions: function () {
      var out = {};
      for (var j = 0; j < nVis; j++) { var i = visList[j]; out[ids[i]] = [pos[2 * i], pos[2 * i + 1]]; }
      return out;
    },
    matches: function () {
      if (!matches) return [];
      var out = [];
      matches.forEach(function (s, n) { if (vis[n]) out.push(ids[n]); });
      return out.sort();
    },
    centred: function () { return lastCentred; },
    theme: function () { return document.documentElement.dataset.theme; },
    kindColor: function (k) { return hue.has(k) ? kindColor(k) : null; },
    renderer: function () { return renderer; },
    pixel: pixel,
    frames: function () {
      return { frames: frames, firstFrameMs: firstFrameAt, firstTickMs: sim.firstTickAt,
        drawnEdges: drawnEdges, labels: labelsDrawn };
    },
    timeline: function () {
      var a = timeline(), list = [];
      for (var i = 0; i < a.length; i++) list.push(iso(a[i]));
      return { first: a.length ? list[0] : null, last: a.length ? list[a.length - 1] : null, instants: list };
    },
    instant: function () { return instant === null ? null : iso(instant); },
    setInstant: function (when) {
      stopPlay();
      var t = when == null || when === "now" ? null : parseIso(when);
      if (t !== t) throw new Error("not an ISO instant: " + when);
      slidAt = performance.now(); // as a move of the slider
      setInstantValue(t);
      if (autoFit) fit(1);
      draw();
      return counts();
    }
  });
  function settled() { return !sim.running && sim.doneSeq === sim.seq && !dirty && !relaxTimer; }

  // ---- start -------------------------------------------------------------------------------
  mark("controls");
  setTimeout(function () {
    initSim();
    mark("sim-init");
    started = true;
    instant = fragmentInstant();
    recompute(1); // the worker has the graph from here on (before the theme's style pass)
    mark("recomputed");
    setTheme(media && media.matches ? "dark" : "light");
    resize();
    mark("theme");
    // The renderer and the first picture, then the timeline (a sort of every start and end).
    // The renderer waits for the layout's first tick (or RENDER_WAIT ms): creating a WebGL
    // context is one synchronous call to the GPU process (10–500 ms here), and a message
    // from the worker is only received once the main thread is free.
    afterFirstTick(function () {
      initRenderer();
      setTimeout(function () {
        var tl = timeline();
        if (instant !== null && tl.length && instant >= tl[tl.length - 1]) setInstantValue(null);
        speedSel.value = String(defaultSpeed());
        showInstant();
        $("timebar").hidden = tl.length < 2;
      }, 0);
    });
  }, 0);
  } // decodeAndRun
})();
