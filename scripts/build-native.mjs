#!/usr/bin/env node
// Builds each package's Node-API addons, packages/*/native/NAME.c into
// packages/*/native/linux-x64/NAME.node: core's huge-pages addon
// (src/memory/huge-pages.ts) and store-fs's read-value addon
// (src/native-read.ts). The binaries are committed, so `pnpm build` needs no
// C toolchain; CI rebuilds them and fails when one differs (`--check`).
//
//   node scripts/build-native.mjs           rebuild (needs Debian's clang and lld)
//   node scripts/build-native.mjs --check   rebuild in a temporary directory and compare
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";

const repo = fileURLToPath(new URL("..", import.meta.url));
const check = process.argv.includes("--check");

// Freestanding (no libc, no startup files), position-independent, warnings
// fatal. Linked by lld directly: no build id, symbols stripped, full RELRO, so
// that the output depends on the source and the compiler only.
const CFLAGS = [
  "--target=x86_64-linux-gnu",
  "-O2",
  "-fPIC",
  "-nostdlib",
  "-ffreestanding",
  "-fvisibility=hidden",
  "-Wall",
  "-Wextra",
  "-Werror",
  "-c",
];
const LDFLAGS = [
  "-shared",
  "--build-id=none",
  "--strip-all",
  "--hash-style=both",
  "-z",
  "now",
  "-z",
  "relro",
];

/** Every addon source: packages/NAME/native/*.c. */
function sources() {
  const found = [];
  for (const pkg of readdirSync(join(repo, "packages"))) {
    const dir = join(repo, "packages", pkg, "native");
    let names;
    try {
      names = readdirSync(dir);
    } catch {
      continue;
    }
    for (const name of names.filter((n) => n.endsWith(".c")).sort()) {
      found.push({
        source: join(dir, name),
        target: join(dir, "linux-x64", name.replace(/\.c$/, ".node")),
      });
    }
  }
  return found;
}

try {
  execFileSync("clang", ["--version"], { stdio: "ignore" });
} catch {
  console.error("build-native: clang is not installed (Debian: apt-get install clang lld)");
  process.exit(1);
}

const sha = (bytes) => createHash("sha256").update(bytes).digest("hex");
let failed = false;
for (const { source, target } of sources()) {
  const dir = mkdtempSync(join(tmpdir(), "zarr-native-"));
  let binary;
  try {
    const object = join(dir, "addon.o");
    const out = join(dir, "addon.node");
    execFileSync("clang", [...CFLAGS, "-o", object, source], { stdio: "inherit" });
    execFileSync("ld.lld", [...LDFLAGS, "-o", out, object], { stdio: "inherit" });
    binary = readFileSync(out);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  const name = relative(repo, target);
  if (check) {
    let committed;
    try {
      committed = readFileSync(target);
    } catch {
      committed = Buffer.alloc(0);
    }
    if (!committed.equals(binary)) {
      console.error(
        `build-native --check: ${name} (sha256 ${sha(committed)}) does not match a rebuild of ${relative(repo, source)} (sha256 ${sha(binary)}); run node scripts/build-native.mjs and commit the result`,
      );
      failed = true;
    } else {
      console.log(`build-native --check: ${name} matches a rebuild (sha256 ${sha(binary)})`);
    }
  } else {
    writeFileSync(target, binary);
    console.log(`build-native: wrote ${name} (${binary.length} bytes, sha256 ${sha(binary)})`);
  }
}
if (failed) process.exit(1);
