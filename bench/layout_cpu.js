// CPU time per tick of the page's force layout (src/ryvem/export/assets/physics.js) in Node,
// outside the browser: the layout's own cost, apart from the renderer and the page.
//
//   node bench/layout_cpu.js PHYSICS.js GRAPH.json [TICKS]
//
// GRAPH.json is {"n": nodes, "a": [...], "b": [...]} (edge ends as node indexes, e.g. the
// "edges" columns of an export's data block). CPU time (process.cpuUsage) is reported next to
// wall time, so a loaded machine moves the second more than the first. Compare two versions
// of physics.js on the same graph, e.g. `git show main:src/ryvem/export/assets/physics.js`.
"use strict";
const fs = require("fs");
const src = fs.readFileSync(process.argv[2], "utf8");
const g = JSON.parse(fs.readFileSync(process.argv[3], "utf8"));
const maxTicks = Number(process.argv[4] || 50);
const hooked = src.replace("    scope.onmessage = function (ev) {",
  "    globalThis.__layout = { step: function () { if (!running) return false; tick();" +
  " if (alpha < ALPHA_MIN && alphaTarget === 0) running = false; return true; }," +
  " alpha: function () { return alpha; }, xy: function () { return [X, Y]; } };\n" +
  "    scope.onmessage = function (ev) {");
if (hooked === src) throw new Error("physics.js changed shape: no onmessage to hook");
const physics = new Function(hooked + "\nreturn physics;")();
globalThis.MessageChannel = class { constructor() { this.port1 = {}; this.port2 = { postMessage() {} }; } };
const scope = { postMessage() {} };
physics(scope);
const N = g.n;
const deg = new Int32Array(N);
for (let j = 0; j < g.a.length; j++) { deg[g.a[j]]++; deg[g.b[j]]++; }
const rad = Float32Array.from({ length: N }, (_, i) => Math.min(26, 4 + 1.6 * Math.sqrt(deg[i])));
const seed = Uint32Array.from({ length: N }, (_, i) => Math.imul(i + 1, 2654435761) >>> 0);
const ident = Int32Array.from({ length: N }, (_, i) => i);
const params = { repulsion: 80, linkDistance: 40, linkStrength: 1, gravity: 0.05, collision: 0.7, friction: 0.4 };
scope.onmessage({ data: { type: "init", n: N, rad, seed, ent: ident, rank: ident, params } });
const keep = g.a.map((a, j) => a !== g.b[j]);
const la = Int32Array.from(g.a.filter((_, j) => keep[j])), lb = Int32Array.from(g.b.filter((_, j) => keep[j]));
scope.onmessage({ data: { type: "graph", active: new Uint8Array(N).fill(1), la, lb, alpha: 1, seq: 1 } });
const api = globalThis.__layout;
let t = 0;
const c0 = process.cpuUsage(), w0 = Date.now();
while (t < maxTicks && api.step()) t++;
const c1 = process.cpuUsage(c0), cpu = (c1.user + c1.system) / 1000;
const [X, Y] = api.xy();
let L = 0;
for (let j = 0; j < la.length; j++) L += Math.hypot(X[la[j]] - X[lb[j]], Y[la[j]] - Y[lb[j]]);
console.log(JSON.stringify({ nodes: N, links: la.length, ticks: t, cpu_ms_per_tick: +(cpu / t).toFixed(1),
  wall_ms_per_tick: +((Date.now() - w0) / t).toFixed(1), alpha: +api.alpha().toFixed(4),
  mean_link_length: +(L / la.length).toFixed(1) }));
