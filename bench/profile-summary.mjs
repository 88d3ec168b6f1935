// `node bench/profile-summary.mjs <file.cpuprofile> [function…]`: a CPU profile's time by package or file, by
// function, and inclusive for the server's own frames and the libraries on the request path (bench/profile-generate.ts
// and bench/profile-saturated.ts write one); for each function named after the file, its self time by the four
// frames that called it. Percentages are of all samples, idle included.
import { readFileSync } from 'node:fs';

const profile = JSON.parse(readFileSync(process.argv[2], 'utf8'));
const nodes = new Map(profile.nodes.map((n) => [n.id, n]));
const parent = new Map();
for (const n of profile.nodes) for (const child of n.children ?? []) parent.set(child, n.id);

/** Microseconds of samples whose top frame is each node. */
const own = new Map();
let total = 0;
profile.samples.forEach((id, i) => {
  const dt = profile.timeDeltas[i] ?? 0;
  own.set(id, (own.get(id) ?? 0) + dt);
  total += dt;
});

/** A frame's package (node_modules), server file, node: module, or native name. */
function place(node) {
  const url = node.callFrame.url;
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (pkg) return pkg[1];
  if (url.includes('/server/')) return `server/${url.split('/server/')[1]}`;
  if (url.startsWith('node:')) return url;
  return url ? url.split('/').slice(-2).join('/') : `(${node.callFrame.functionName || 'native'})`;
}
const label = (node) => `${node.callFrame.functionName || '(anonymous)'} ${place(node)}`;

const byPlace = new Map();
const byFunction = new Map();
const inclusive = new Map();
const add = (map, key, t) => map.set(key, (map.get(key) ?? 0) + t);
for (const [id, t] of own) {
  const node = nodes.get(id);
  add(byPlace, place(node), t);
  add(byFunction, `${label(node)}:${node.callFrame.lineNumber}`, t);
  const seen = new Set();
  for (let cur = id; cur !== undefined; cur = parent.get(cur)) {
    const key = label(nodes.get(cur));
    if (!seen.has(key)) add(inclusive, key, t);
    seen.add(key);
  }
}

const top = (map, n, keep = () => true) =>
  [...map]
    .filter(([k]) => keep(k))
    .sort((a, b) => b[1] - a[1])
    .slice(0, n)
    .map(([k, t]) => `${((100 * t) / total).toFixed(1).padStart(5)}%  ${k}`)
    .join('\n');

console.log(`${(total / 1e6).toFixed(2)} s of samples`);
console.log(`-- self time by package or file --\n${top(byPlace, 30)}`);
console.log(`-- self time by function --\n${top(byFunction, 40)}`);
console.log(
  `-- inclusive: the server's frames and the request path's libraries --\n${top(inclusive, 45, (k) => /server\/|better-auth|drizzle|\bpg\b|pg-pool|hono/.test(k))}`,
);

for (const name of process.argv.slice(3)) {
  const byCallers = new Map();
  for (const [id, t] of own) {
    if (nodes.get(id).callFrame.functionName !== name) continue;
    const callers = [];
    for (let cur = parent.get(id); cur !== undefined && callers.length < 4; cur = parent.get(cur)) callers.push(label(nodes.get(cur)));
    add(byCallers, callers.join(' < '), t);
  }
  console.log(`-- ${name}, by its callers --\n${top(byCallers, 8)}`);
}
