  // ---- the force layout (runs in a Web Worker built from this function's source) ----
  // A velocity-Verlet simulation in the style of d3-force — link springs, Barnes–Hut
  // many-body repulsion on a flat typed-array quadtree, gravity toward the centre and
  // grid-hashed collision — over typed arrays, so 100,000 nodes fit. The same messages in
  // the same order give the same positions: nothing here reads the clock to decide a force.
  function physics(scope) {
    var N = 0, X, Y, VX, VY, FX, FY, RAD, SEED, ENT, RANK, placed, active, act, nAct = 0;
    var LA = new Int32Array(0), LB = LA, LS = new Float64Array(0), LBIAS = LS, nLinks = 0;
    var params = null, alpha = 1, alphaTarget = 0, running = false, ticks = 0, seq = 0;
    // d3's schedule (300 ticks from alpha 1 to 0.001, theta 0.9) up to BIG active nodes;
    // above it 150 ticks and theta 1.2 (as ForceAtlas2), so 100,000 nodes settle in time.
    var ALPHA_MIN = 0.001, BIG = 30000, ALPHA_DECAY = 1 - Math.pow(ALPHA_MIN, 1 / 300), THETA2 = 0.81;
    function schedule(n) {
      ALPHA_DECAY = 1 - Math.pow(ALPHA_MIN, 1 / (n > BIG ? 150 : 300));
      THETA2 = n > BIG ? 1.44 : 0.81;
    }
    var waitingAck = false, dirty = false, lastTickMs = 0, spare = null;
    var wmarks = [], wclock = scope.performance || null; // the worker's start, for the page's marks
    function wmark(name) { if (wclock && wmarks) wmarks.push([name, wclock.timeOrigin + wclock.now()]); }
    wmark("w-start");
    var jseed = 0x5eed;
    function jiggle() {
      jseed = (jseed + 0x6d2b79f5) | 0;
      var t = Math.imul(jseed ^ (jseed >>> 15), 1 | jseed);
      t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
      return ((((t ^ (t >>> 14)) >>> 0) / 4294967296) - 0.5) * 1e-6;
    }
    function unit(h) { // a seeded value in [0, 1) from a 32-bit hash
      h = Math.imul(h ^ (h >>> 16), 0x85ebca6b); h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
      return ((h ^ (h >>> 16)) >>> 0) / 4294967296;
    }

    function place() {
      var any = false, i, j, n, l;
      for (i = 0; i < N && !any; i++) any = placed[i] === 1;
      var byEnt = new Int32Array(N).fill(-1); // entity -> its last placed version
      for (i = 0; i < N; i++) if (placed[i]) byEnt[ENT[i]] = i;
      var partner = null;
      if (any) { // a new node starts beside a neighbour already on the page
        partner = new Int32Array(N).fill(-1);
        for (l = 0; l < nLinks; l++) {
          var a = LA[l], b = LB[l];
          if (!placed[a] && placed[b] && partner[a] < 0) partner[a] = b;
          else if (!placed[b] && placed[a] && partner[b] < 0) partner[b] = a;
        }
      }
      for (j = 0; j < nAct; j++) {
        n = act[j];
        if (placed[n]) continue;
        var sib = byEnt[ENT[n]];
        if (sib >= 0) near(n, sib);
        else if (partner && partner[n] >= 0) near(n, partner[n]);
        else {
          var radius = 10 * Math.sqrt(0.5 + RANK[n]), angle = RANK[n] * Math.PI * (3 - Math.sqrt(5));
          X[n] = radius * Math.cos(angle); Y[n] = radius * Math.sin(angle);
          placed[n] = 1; VX[n] = VY[n] = 0;
        }
        byEnt[ENT[n]] = n;
      }
    }
    function near(n, m) {
      X[n] = X[m] + (unit(SEED[n]) - 0.5) * 30; Y[n] = Y[m] + (unit(SEED[n] ^ 0x9e3779b9) - 0.5) * 30;
      VX[n] = VY[n] = 0; placed[n] = 1;
    }

    function linkForce(a) {
      var base = params.linkStrength, dist = params.linkDistance;
      for (var i = 0; i < nLinks; i++) {
        var s = LA[i], t = LB[i];
        var dx = X[t] + VX[t] - X[s] - VX[s] || jiggle();
        var dy = Y[t] + VY[t] - Y[s] - VY[s] || jiggle();
        var len = Math.sqrt(dx * dx + dy * dy);
        len = (len - dist) / len * a * base * LS[i];
        dx *= len; dy *= len;
        var b = LBIAS[i];
        VX[t] -= dx * b; VY[t] -= dy * b;
        VX[s] += dx * (1 - b); VY[s] += dy * (1 - b);
      }
    }

    // Barnes–Hut on a threaded quadtree in flat typed arrays, built top-down by partitioning
    // the active nodes (so ORDER ends in spatial order and the walk below touches
    // neighbouring memory). Cells are stored in depth-first order with a skip pointer
    // (QSKIP: the next cell after the subtree), so a walk is one forward loop, no stack. A
    // leaf holds up to LEAF nodes (ORDER[QLO..QHI)), or more when they all coincide. Each
    // cell keeps its mass QM, centre QX/QY and QR2 = width² / theta², so a cell is far
    // enough when QR2 < distance². Nothing is allocated per tick once the arrays fit.
    // The first tick (which V8 runs cold and the page waits for) approximates more coarsely
    // (theta 2): its nodes sit on an even spiral, and the next tick looks again. 10k in Node:
    // the many-body part of that tick 14–24 ms against 26–30 at theta 0.9.
    var LEAF = 8, FIRST_THETA2 = 4;
    var QX = new Float64Array(0), QY = QX, QM = QX, QR2 = QX;
    var QSKIP = new Int32Array(0), QLO = QSKIP, QHI = QSKIP, ORDER = QSKIP, TMP = QSKIP;
    var cells = 0, thetaNow = 0;
    function growCells(need) {
      if (QSKIP.length >= need) return;
      var cap = Math.max(need, 2 * QSKIP.length, 1024);
      function more(old, T) { var a = new T(cap); a.set(old.subarray(0, Math.min(old.length, cap))); return a; }
      QX = more(QX, Float64Array); QY = more(QY, Float64Array); QM = more(QM, Float64Array);
      QR2 = more(QR2, Float64Array); QSKIP = more(QSKIP, Int32Array); QLO = more(QLO, Int32Array);
      QHI = more(QHI, Int32Array);
    }
    var QUAD = new Int32Array(4), QSTART = new Int32Array(5);
    function split(lo, hi, x0, y0, size, depth) {
      var c = cells++;
      if (cells > QSKIP.length) growCells(cells);
      var n = hi - lo, i, k;
      QR2[c] = size * size / (ticks === 0 ? FIRST_THETA2 : THETA2);
      if (n <= LEAF || depth > 30) {
        var m = 0, sx = 0, sy = 0;
        for (k = lo; k < hi; k++) { i = ORDER[k]; sx += X[i]; sy += Y[i]; m++; }
        QM[c] = m; QX[c] = sx / m; QY[c] = sy / m; QLO[c] = lo; QHI[c] = hi;
        QSKIP[c] = cells;
        return;
      }
      QLO[c] = QHI[c] = 0; // internal
      var h = size / 2, mx = x0 + h, my = y0 + h;
      var c0 = 0, c1 = 0, c2 = 0, c3 = 0;
      for (k = lo; k < hi; k++) {
        i = ORDER[k];
        var q = (X[i] >= mx ? 1 : 0) | (Y[i] >= my ? 2 : 0);
        TMP[k] = q;
        if (q === 0) c0++; else if (q === 1) c1++; else if (q === 2) c2++; else c3++;
      }
      var s0 = lo, s1 = s0 + c0, s2 = s1 + c1, s3 = s2 + c2, p0 = s0, p1 = s1, p2 = s2, p3 = s3;
      // counting sort of ORDER[lo..hi) by quadrant, through the tail of TMP as scratch
      for (k = lo; k < hi; k++) {
        var qq = TMP[k], v = ORDER[k];
        if (qq === 0) TMP[N + p0++] = v; else if (qq === 1) TMP[N + p1++] = v;
        else if (qq === 2) TMP[N + p2++] = v; else TMP[N + p3++] = v;
      }
      for (k = lo; k < hi; k++) ORDER[k] = TMP[N + k];
      var mm = 0, ax = 0, ay = 0, ch;
      if (c0) { ch = cells; split(s0, s1, x0, y0, h, depth + 1); mm += QM[ch]; ax += QX[ch] * QM[ch]; ay += QY[ch] * QM[ch]; }
      if (c1) { ch = cells; split(s1, s2, mx, y0, h, depth + 1); mm += QM[ch]; ax += QX[ch] * QM[ch]; ay += QY[ch] * QM[ch]; }
      if (c2) { ch = cells; split(s2, s3, x0, my, h, depth + 1); mm += QM[ch]; ax += QX[ch] * QM[ch]; ay += QY[ch] * QM[ch]; }
      if (c3) { ch = cells; split(s3, hi, mx, my, h, depth + 1); mm += QM[ch]; ax += QX[ch] * QM[ch]; ay += QY[ch] * QM[ch]; }
      QM[c] = mm; QX[c] = ax / mm; QY[c] = ay / mm;
      QSKIP[c] = cells;
    }
    function buildTree() {
      var x0 = Infinity, y0 = Infinity, x1 = -Infinity, y1 = -Infinity, j, i;
      if (ORDER.length < N) { ORDER = new Int32Array(N); TMP = new Int32Array(2 * N); }
      if (thetaNow !== THETA2 || ORDER.length < nAct) thetaNow = THETA2;
      for (j = 0; j < nAct; j++) {
        i = act[j];
        if (X[i] < x0) x0 = X[i]; if (X[i] > x1) x1 = X[i];
        if (Y[i] < y0) y0 = Y[i]; if (Y[i] > y1) y1 = Y[i];
      }
      ORDER.set(act.subarray(0, nAct));
      growCells(Math.ceil(nAct / 2) + 64);
      cells = 0;
      split(0, nAct, x0, y0, Math.max(x1 - x0, y1 - y0, 1) * 1.0001, 0);
      // Walk (and integrate) in spatial order from now on: consecutive nodes share cells.
      act.set(ORDER.subarray(0, nAct));
    }
    // Above REUSE active nodes the many-body force is computed every other tick and the
    // tick between applies the same per-node force again (scaled by the new alpha): nodes
    // move little in one tick, and this halves the layout's main cost.
    var REUSE = 2000, CFX = new Float64Array(0), CFY = CFX, chargeFresh = false;
    function chargeForce(a) {
      if (nAct < 2 || params.repulsion <= 0) return;
      var j, i;
      if (CFX.length < N) { CFX = new Float64Array(N); CFY = new Float64Array(N); chargeFresh = false; }
      if (chargeFresh && nAct > REUSE && ticks % 2 === 1) {
        for (j = 0; j < nAct; j++) { i = act[j]; VX[i] += CFX[i] * a; VY[i] += CFY[i] * a; }
        return;
      }
      buildTree();
      var k = -params.repulsion, n = cells;
      for (j = 0; j < nAct; j++) {
        i = act[j];
        var xi = X[i], yi = Y[i], fx = 0, fy = 0, c = 0;
        while (c < n) {
          var dx = QX[c] - xi, dy = QY[c] - yi, l = dx * dx + dy * dy;
          if (QR2[c] < l) { // far: the whole cell as one body
            if (l < 1) l = Math.sqrt(l);
            var w = k * QM[c] / l;
            fx += dx * w; fy += dy * w;
            c = QSKIP[c];
          } else if (QHI[c] > QLO[c]) { // a near leaf: each of its nodes
            for (var p = QLO[c], e = QHI[c]; p < e; p++) {
              var o = ORDER[p];
              if (o === i) continue;
              dx = X[o] - xi || jiggle(); dy = Y[o] - yi || jiggle();
              l = dx * dx + dy * dy;
              if (l < 1) l = Math.sqrt(l);
              fx += dx * k / l; fy += dy * k / l;
            }
            c = QSKIP[c];
          } else {
            c++; // open: its first child follows it
          }
        }
        CFX[i] = fx; CFY[i] = fy;
        VX[i] += fx * a; VY[i] += fy * a;
      }
      chargeFresh = true;
    }

    function gravityForce(a) {
      var g = params.gravity * a;
      if (g <= 0) return;
      for (var j = 0; j < nAct; j++) { var i = act[j]; VX[i] -= X[i] * g; VY[i] -= Y[i] * g; }
    }

    var GX = new Int32Array(0), GY = GX, HEAD = GX, GNEXT = GX;
    var CX = new Float64Array(0), CY = CX, CR = CX, DVX = CX, DVY = CX;
    function collideForce() {
      var strength = params.collision;
      if (strength <= 0 || nAct < 2) return;
      // Grid cells sized for the 75th-percentile radius, not the largest, so a cell holds a
      // node or two; a pair is resolved once, by its larger node, which searches as many
      // cells around it as its own diameter needs (a small node: the 3×3 around it). Nodes
      // are copied in walk order (spatial, after the many-body tree), so neighbours are near
      // in memory; the pushes are summed and applied after the pass.
      var pad = 2, j, i, hist = new Int32Array(64), q = Math.ceil(0.75 * nAct), rq = 0;
      for (j = 0; j < nAct; j++) hist[Math.min(63, Math.ceil(RAD[act[j]]))]++;
      for (var hr = 0, acc = 0; hr < 64; hr++) { acc += hist[hr]; if (acc >= q) { rq = hr; break; } }
      var size = 1; while (size < 2 * nAct) size <<= 1;
      var mask = size - 1;
      if (HEAD.length < size) HEAD = new Int32Array(size);
      if (GX.length < nAct) {
        var cap = Math.max(N, 16);
        GX = new Int32Array(cap); GY = new Int32Array(cap); GNEXT = new Int32Array(cap);
        CX = new Float64Array(cap); CY = new Float64Array(cap); CR = new Float64Array(cap);
        DVX = new Float64Array(cap); DVY = new Float64Array(cap);
      }
      HEAD.fill(-1, 0, size);
      var cellSize = 2 * (rq + pad);
      for (j = 0; j < nAct; j++) {
        i = act[j];
        var px = X[i] + VX[i], py = Y[i] + VY[i];
        CX[j] = px; CY[j] = py; CR[j] = RAD[i] + pad; DVX[j] = 0; DVY[j] = 0;
        var cx = Math.floor(px / cellSize), cy = Math.floor(py / cellSize);
        GX[j] = cx; GY[j] = cy;
        var hk = (Math.imul(cx, 73856093) ^ Math.imul(cy, 19349663)) & mask;
        GNEXT[j] = HEAD[hk]; HEAD[hk] = j;
      }
      for (j = 0; j < nAct; j++) {
        var xi = CX[j], yi = CY[j], ri = CR[j], ri2 = ri * ri, dvx = 0, dvy = 0;
        var reach = Math.max(1, Math.ceil(2 * ri / cellSize)), gx = GX[j], gy = GY[j];
        for (var ox = -reach; ox <= reach; ox++) {
          for (var oy = -reach; oy <= reach; oy++) {
            var tx = gx + ox, ty = gy + oy;
            for (var bj = HEAD[(Math.imul(tx, 73856093) ^ Math.imul(ty, 19349663)) & mask]; bj >= 0; bj = GNEXT[bj]) {
              var rj = CR[bj];
              if (rj > ri || (rj === ri && bj <= j)) continue; // the larger node's pair
              if (GX[bj] !== tx || GY[bj] !== ty) continue;
              var r = ri + rj;
              var x = xi - CX[bj], y = yi - CY[bj], l = x * x + y * y;
              if (l >= r * r) continue;
              if (x === 0) { x = jiggle(); l += x * x; }
              if (y === 0) { y = jiggle(); l += y * y; }
              l = Math.sqrt(l);
              l = (r - l) / l * strength;
              x *= l; y *= l;
              var w = (rj * rj) / (ri2 + rj * rj);
              dvx += x * w; dvy += y * w;
              DVX[bj] -= x * (1 - w); DVY[bj] -= y * (1 - w);
            }
          }
        }
        DVX[j] += dvx; DVY[j] += dvy;
      }
      for (j = 0; j < nAct; j++) { i = act[j]; VX[i] += DVX[j]; VY[i] += DVY[j]; }
    }

    function tick() {
      var t0 = Date.now();
      alpha += (alphaTarget - alpha) * ALPHA_DECAY;
      linkForce(alpha);
      chargeForce(alpha);
      gravityForce(alpha);
      // collision every other tick above REUSE nodes, every third on a big graph; not on the
      // first tick (ticks = 0), which V8 runs cold and which the page waits for (10k: 45–75
      // ms in Node with it, 33–40 without), and whose starting spiral has no overlaps to undo
      if (nAct <= REUSE || ticks % (nAct > BIG ? 3 : 2) === 1) collideForce();
      var keep = 1 - params.friction;
      for (var j = 0; j < nAct; j++) {
        var i = act[j];
        if (!isNaN(FX[i])) { X[i] = FX[i]; VX[i] = 0; } else { VX[i] *= keep; X[i] += VX[i]; }
        if (!isNaN(FY[i])) { Y[i] = FY[i]; VY[i] = 0; } else { VY[i] *= keep; Y[i] += VY[i]; }
      }
      ticks++;
      lastTickMs = Date.now() - t0;
    }

    function post() {
      if (waitingAck) { dirty = true; return; }
      // Positions travel as a transferred buffer that the page hands back with its ack, so
      // two buffers go back and forth and nothing is allocated per message.
      var xy = spare && spare.length === 2 * N ? spare : new Float32Array(2 * N);
      spare = null;
      for (var i = 0; i < N; i++) { xy[2 * i] = X[i]; xy[2 * i + 1] = Y[i]; }
      waitingAck = true; dirty = false;
      var wm = null;
      if (ticks > 0 && wmarks) { wmark("w-post"); wm = wmarks; wmarks = null; }
      scope.postMessage({ type: "pos", xy: xy, alpha: alpha, ticks: ticks, running: running,
        seq: seq, tickMs: lastTickMs, marks: wm }, [xy.buffer]);
    }

    var channel = new MessageChannel(), looping = false;
    channel.port1.onmessage = loop;
    function kick() { if (!looping) { looping = true; channel.port2.postMessage(0); } }
    function loop() {
      looping = false;
      if (!running) return;
      var t0 = Date.now();
      do {
        tick();
        if (wmarks) wmark("w-tick" + ticks);
        if (alpha < ALPHA_MIN && alphaTarget === 0) { running = false; break; }
      } while (Date.now() - t0 < 12);
      post();
      if (running) kick();
    }
    function reheat(a) { alpha = Math.max(alpha, a); running = true; kick(); }

    function setLinks(la, lb) {
      LA = la; LB = lb; nLinks = la.length;
      var count = new Int32Array(N), i;
      for (i = 0; i < nLinks; i++) { count[LA[i]]++; count[LB[i]]++; }
      LS = new Float64Array(nLinks); LBIAS = new Float64Array(nLinks);
      for (i = 0; i < nLinks; i++) {
        var ca = count[LA[i]], cb = count[LB[i]];
        LS[i] = 1 / Math.min(ca, cb); LBIAS[i] = ca / (ca + cb);
      }
    }

    scope.onmessage = function (ev) {
      var m = ev.data;
      if (m.seq) seq = m.seq;
      wmark("w-msg-" + m.type);
      if (m.type === "init") {
        N = m.n; X = new Float64Array(N); Y = new Float64Array(N); VX = new Float64Array(N);
        VY = new Float64Array(N); FX = new Float64Array(N).fill(NaN); FY = new Float64Array(N).fill(NaN);
        RAD = m.rad; SEED = m.seed; ENT = m.ent; RANK = m.rank; placed = new Uint8Array(N);
        active = new Uint8Array(N); act = new Int32Array(N); params = m.params;
      } else if (m.type === "graph") {
        active = m.active; nAct = 0;
        for (var i = 0; i < N; i++) if (active[i]) act[nAct++] = i;
        schedule(nAct);
        chargeFresh = false;
        setLinks(m.la, m.lb);
        place();
        wmark("w-placed");
        // No position message before the first tick: the page acks one message at a time,
        // so a tickless one would hold the first tick's behind a round trip through a main
        // thread that is still parsing the file (10k: about 60 ms more to the first tick).
        reheat(m.alpha);
      } else if (m.type === "params") {
        params = m.params; chargeFresh = false; reheat(m.alpha);
      } else if (m.type === "fix") {
        FX[m.i] = m.x; FY[m.i] = m.y;
        if (!isNaN(m.x)) { X[m.i] = m.x; Y[m.i] = m.y; }
        if (m.alphaTarget != null) alphaTarget = m.alphaTarget;
        if (m.alpha) reheat(m.alpha);
      } else if (m.type === "ack") {
        waitingAck = false;
        if (m.xy) spare = m.xy;
        if (dirty && !running) post();
      }
    };
  }
