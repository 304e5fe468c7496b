import { build } from "esbuild";
import { gzipSync } from "node:zlib";
const entry = process.argv[2];
const r = await build({ entryPoints: [entry], bundle: true, minify: true, splitting: true, format: "esm", platform: "browser", target: "es2022", outdir: "/tmp/bd-out", metafile: true, write: true, logLevel: "error" });
const outs = r.metafile.outputs;
const entryOut = Object.keys(outs).find(k => outs[k].entryPoint === entry);
const upfront = new Set(); const stack=[entryOut];
while (stack.length) { const o = stack.pop(); if (upfront.has(o)) continue; upfront.add(o); for (const i of outs[o].imports) if (i.kind==="import-statement" && outs[i.path]) stack.push(i.path); }
const fs = await import("node:fs");
let tot=0, gz=0; const mods = {};
for (const o of upfront) { tot += outs[o].bytes; gz += gzipSync(fs.readFileSync(o),{level:9}).length; for (const [m, v] of Object.entries(outs[o].inputs)) mods[m]=(mods[m]||0)+v.bytesInOutput; }
console.log("upfront min", tot, "gz", gz);
const groups = {};
for (const [m,b] of Object.entries(mods)) { const g = m.replace(/.*packages\//,"").replace(/\/dist\//,"/"); groups[g]=b; }
for (const [g,b] of Object.entries(groups).sort((a,b)=>b[1]-a[1])) console.log(String(b).padStart(7), g);
