import { gzipSync } from "node:zlib";
import * as esbuild from "esbuild";

const r = await esbuild.build({
  entryPoints: [process.argv[2]],
  bundle: true,
  minify: true,
  platform: "browser",
  format: "esm",
  write: false,
  metafile: true,
  logLevel: "silent",
  absWorkingDir: process.cwd(),
});
const code = r.outputFiles[0].contents;
console.log("min", code.length, "gz", gzipSync(code, { level: 9 }).length);
const ins = Object.entries(r.metafile.outputs)[0][1].inputs;
const rows = Object.entries(ins)
  .map(([k, v]) => [v.bytesInOutput, k])
  .sort((a, b) => b[0] - a[0])
  .slice(0, 40);
for (const [b, k] of rows) console.log(b, k);
