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
    var waitingAck = false, dirty = false, lastTickMs = 0;
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
      var byEnt = new Map();
      for (i = 0; i < N; i++) if (placed[i]) byEnt.set(ENT[i], i);
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
        var sib = byEnt.get(ENT[n]);
        if (sib !== undefined) near(n, sib);
        else if (partner && partner[n] >= 0) near(n, partner[n]);
        else {
          var radius = 10 * Math.sqrt(0.5 + RANK[n]), angle = RANK[n] * Math.PI * (3 - Math.sqrt(5));
          X[n] = radius * Math.cos(angle); Y[n] = radius * Math.sin(angle);
          placed[n] = 1; VX[n] = VY[n] = 0;
        }
        byEnt.set(ENT[n], n);
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

    // Quadtree in flat arrays: cell c has children QC[4c..4c+3] (0 = none), a point (QP, -1
    // when internal or empty) and, after accumulate, mass QM and centre QX/QY; NEXT chains
    // points that share a leaf (coincident or too deep).
    var QC = new Int32Array(0), QP = QC, QM = new Float64Array(0), QX = QM, QY = QM, QS = QM;
    var NEXT = new Int32Array(0), STACK = new Int32Array(0), cells = 0;
    function grow(need) {
      if (QP.length >= need) return;
      var cap = Math.max(need, QP.length * 2, 1024);
      function more(old, T, k) { var a = new T(cap * k); a.set(old); return a; }
      QC = more(QC, Int32Array, 4); QP = more(QP, Int32Array, 1); QM = more(QM, Float64Array, 1);
      QX = more(QX, Float64Array, 1); QY = more(QY, Float64Array, 1); QS = more(QS, Float64Array, 1);
    }
    function cell(size) {
      var c = cells++;
      QC[4 * c] = QC[4 * c + 1] = QC[4 * c + 2] = QC[4 * c + 3] = 0;
      QP[c] = -1; QM[c] = 0; QX[c] = 0; QY[c] = 0; QS[c] = size;
      return c;
    }
    function buildTree() {
      var x0 = Infinity, y0 = Infinity, x1 = -Infinity, y1 = -Infinity, j, i;
      for (j = 0; j < nAct; j++) {
        i = act[j];
        if (X[i] < x0) x0 = X[i]; if (X[i] > x1) x1 = X[i];
        if (Y[i] < y0) y0 = Y[i]; if (Y[i] > y1) y1 = Y[i];
      }
      var size = Math.max(x1 - x0, y1 - y0, 1) * 1.0001;
      grow(2 * nAct + 64);
      if (NEXT.length < N) NEXT = new Int32Array(N);
      cells = 0;
      cell(size);
      for (j = 0; j < nAct; j++) {
        i = act[j];
        NEXT[i] = -1;
        var c = 0, cx = x0, cy = y0, s = size, depth = 0;
        for (;;) {
          var base = 4 * c;
          var internal = QC[base] | QC[base + 1] | QC[base + 2] | QC[base + 3];
          if (!internal && QP[c] < 0 && QM[c] === 0) { QP[c] = i; QM[c] = 1; break; }
          if (!internal) {
            if (depth > 24) { NEXT[i] = NEXT[QP[c]]; NEXT[QP[c]] = i; QM[c] += 1; break; }
            // split: push the resident point one level down
            var p = QP[c]; QP[c] = -1; QM[c] = 0;
            var h0 = s / 2, q0 = (X[p] >= cx + h0 ? 1 : 0) | (Y[p] >= cy + h0 ? 2 : 0);
            if (cells + 2 > QP.length) grow(cells * 2);
            var nc = cell(h0);
            QC[base + q0] = nc; QP[nc] = p; QM[nc] = 1;
            var np = NEXT[p];
            if (np >= 0) { // a chain moves down whole (all coincident)
              var k = 1; while (np >= 0) { k++; np = NEXT[np]; } QM[nc] = k;
            }
            continue;
          }
          var h = s / 2, q = (X[i] >= cx + h ? 1 : 0) | (Y[i] >= cy + h ? 2 : 0);
          if (q & 1) cx += h; if (q & 2) cy += h;
          s = h; depth++;
          var child = QC[base + q];
          if (!child) {
            if (cells + 1 > QP.length) grow(cells * 2);
            child = cell(h); QC[base + q] = child; QP[child] = i; QM[child] = 1; break;
          }
          c = child;
        }
      }
      // accumulate mass and centres bottom-up (children always have higher indices)
      for (c = cells - 1; c >= 0; c--) {
        var b4 = 4 * c;
        if (QC[b4] | QC[b4 + 1] | QC[b4 + 2] | QC[b4 + 3]) {
          var m = 0, sx = 0, sy = 0;
          for (var qq = 0; qq < 4; qq++) {
            var ch = QC[b4 + qq];
            if (ch) { m += QM[ch]; sx += QX[ch] * QM[ch]; sy += QY[ch] * QM[ch]; }
          }
          QM[c] = m; QX[c] = sx / m; QY[c] = sy / m;
        } else if (QP[c] >= 0) {
          QX[c] = X[QP[c]]; QY[c] = Y[QP[c]];
        }
      }
    }
    // Every 25 ticks the active nodes are put in quadtree (spatial) order, so consecutive
    // walks touch the same cells: about twice as fast on a big graph.
    function spatialOrder() {
      var out = new Int32Array(nAct), n = 0, sp = 0;
      STACK[sp++] = 0;
      while (sp) {
        var c = STACK[--sp], base = 4 * c;
        if (QC[base] | QC[base + 1] | QC[base + 2] | QC[base + 3]) {
          for (var q = 3; q >= 0; q--) if (QC[base + q]) STACK[sp++] = QC[base + q];
        } else {
          for (var o = QP[c]; o >= 0; o = NEXT[o]) out[n++] = o;
        }
      }
      if (n === nAct) act.set(out);
    }
    function chargeForce(a) {
      if (nAct < 2 || params.repulsion <= 0) return;
      buildTree();
      if (STACK.length < 4 * 64 + 8) STACK = new Int32Array(4 * 64 + 8);
      if (ticks % 25 === 0) spatialOrder();
      var k = -params.repulsion * a;
      for (var j = 0; j < nAct; j++) {
        var i = act[j], xi = X[i], yi = Y[i], sp = 0, fx = 0, fy = 0;
        STACK[sp++] = 0;
        while (sp) {
          var c = STACK[--sp], base = 4 * c;
          var internal = QC[base] | QC[base + 1] | QC[base + 2] | QC[base + 3];
          var dx = QX[c] - xi, dy = QY[c] - yi, l = dx * dx + dy * dy;
          if (internal) {
            if (QS[c] * QS[c] / THETA2 < l) {
              if (l < 1) l = Math.sqrt(l);
              fx += dx * k * QM[c] / l; fy += dy * k * QM[c] / l;
              continue;
            }
            if (QC[base]) STACK[sp++] = QC[base];
            if (QC[base + 1]) STACK[sp++] = QC[base + 1];
            if (QC[base + 2]) STACK[sp++] = QC[base + 2];
            if (QC[base + 3]) STACK[sp++] = QC[base + 3];
            continue;
          }
          for (var o = QP[c]; o >= 0; o = NEXT[o]) {
            if (o === i) continue;
            dx = X[o] - xi || jiggle(); dy = Y[o] - yi || jiggle();
            l = dx * dx + dy * dy;
            if (l < 1) l = Math.sqrt(l);
            fx += dx * k / l; fy += dy * k / l;
          }
        }
        VX[i] += fx; VY[i] += fy;
      }
    }

    function gravityForce(a) {
      var g = params.gravity * a;
      if (g <= 0) return;
      for (var j = 0; j < nAct; j++) { var i = act[j]; VX[i] -= X[i] * g; VY[i] -= Y[i] * g; }
    }

    var GX = new Int32Array(0), GY = GX, HEAD = GX, GNEXT = GX;
    function collideForce() {
      var strength = params.collision;
      if (strength <= 0 || nAct < 2) return;
      var pad = 2, maxR = 0, j, i;
      for (j = 0; j < nAct; j++) if (RAD[act[j]] > maxR) maxR = RAD[act[j]];
      var size = 1; while (size < 2 * nAct) size <<= 1;
      var mask = size - 1;
      if (HEAD.length < size) HEAD = new Int32Array(size);
      if (GX.length < N) { GX = new Int32Array(N); GY = new Int32Array(N); GNEXT = new Int32Array(N); }
      HEAD.fill(-1, 0, size);
      var cellSize = 2 * (maxR + pad);
      for (j = 0; j < nAct; j++) {
        i = act[j];
        var cx = Math.floor((X[i] + VX[i]) / cellSize), cy = Math.floor((Y[i] + VY[i]) / cellSize);
        GX[i] = cx; GY[i] = cy;
        var hk = (Math.imul(cx, 73856093) ^ Math.imul(cy, 19349663)) & mask;
        GNEXT[i] = HEAD[hk]; HEAD[hk] = j;
      }
      for (j = 0; j < nAct; j++) {
        i = act[j];
        var xi = X[i] + VX[i], yi = Y[i] + VY[i], ri = RAD[i] + pad, ri2 = ri * ri;
        for (var ox = -1; ox <= 1; ox++) {
          for (var oy = -1; oy <= 1; oy++) {
            var tx = GX[i] + ox, ty = GY[i] + oy;
            for (var bj = HEAD[(Math.imul(tx, 73856093) ^ Math.imul(ty, 19349663)) & mask]; bj >= 0; bj = GNEXT[act[bj]]) {
              if (bj <= j) continue;
              var b = act[bj];
              if (GX[b] !== tx || GY[b] !== ty) continue;
              var rj = RAD[b] + pad, r = ri + rj;
              var x = xi - X[b] - VX[b], y = yi - Y[b] - VY[b], l = x * x + y * y;
              if (l >= r * r) continue;
              if (x === 0) { x = jiggle(); l += x * x; }
              if (y === 0) { y = jiggle(); l += y * y; }
              l = Math.sqrt(l);
              l = (r - l) / l * strength;
              x *= l; y *= l;
              var w = (rj * rj) / (ri2 + rj * rj);
              VX[i] += x * w; VY[i] += y * w;
              VX[b] -= x * (1 - w); VY[b] -= y * (1 - w);
            }
          }
        }
      }
    }

    function tick() {
      var t0 = Date.now();
      alpha += (alphaTarget - alpha) * ALPHA_DECAY;
      linkForce(alpha);
      chargeForce(alpha);
      gravityForce(alpha);
      if (nAct <= BIG || ticks % 3 === 0) collideForce(); // every third tick on a big graph
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
      var xy = new Float32Array(2 * N);
      for (var i = 0; i < N; i++) { xy[2 * i] = X[i]; xy[2 * i + 1] = Y[i]; }
      waitingAck = true; dirty = false;
      scope.postMessage({ type: "pos", xy: xy, alpha: alpha, ticks: ticks, running: running,
        seq: seq, tickMs: lastTickMs }, [xy.buffer]);
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
      if (m.type === "init") {
        N = m.n; X = new Float64Array(N); Y = new Float64Array(N); VX = new Float64Array(N);
        VY = new Float64Array(N); FX = new Float64Array(N).fill(NaN); FY = new Float64Array(N).fill(NaN);
        RAD = m.rad; SEED = m.seed; ENT = m.ent; RANK = m.rank; placed = new Uint8Array(N);
        active = new Uint8Array(N); act = new Int32Array(N); params = m.params;
      } else if (m.type === "graph") {
        active = m.active; nAct = 0;
        for (var i = 0; i < N; i++) if (active[i]) act[nAct++] = i;
        schedule(nAct);
        setLinks(m.la, m.lb);
        place();
        reheat(m.alpha);
        post();
      } else if (m.type === "params") {
        params = m.params; reheat(m.alpha);
      } else if (m.type === "fix") {
        FX[m.i] = m.x; FY[m.i] = m.y;
        if (!isNaN(m.x)) { X[m.i] = m.x; Y[m.i] = m.y; }
        if (m.alphaTarget != null) alphaTarget = m.alphaTarget;
        if (m.alpha) reheat(m.alpha);
      } else if (m.type === "ack") {
        waitingAck = false;
        if (dirty && !running) post();
      }
    };
  }
