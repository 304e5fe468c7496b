#!/usr/bin/env node
// Builds native/huge-pages.c into native/linux-x64/huge-pages.node, the
// Node-API addon core uses to advise huge pages for large fresh arrays
// (src/memory/huge-pages.ts). The binary is committed, so `pnpm build` needs no
// C toolchain; CI rebuilds it and fails when it differs (`--check`).
//
//   node scripts/build-native.mjs           rebuild (needs Debian's clang and lld)
//   node scripts/build-native.mjs --check   rebuild in a temporary directory and compare
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));
const source = join(root, "native/huge-pages.c");
const target = join(root, "native/linux-x64/huge-pages.node");
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

try {
  execFileSync("clang", ["--version"], { stdio: "ignore" });
} catch {
  console.error("build-native: clang is not installed (Debian: apt-get install clang lld)");
  process.exit(1);
}

const dir = mkdtempSync(join(tmpdir(), "zarr-core-native-"));
let binary;
try {
  const object = join(dir, "huge-pages.o");
  const out = join(dir, "huge-pages.node");
  execFileSync("clang", [...CFLAGS, "-o", object, source], { stdio: "inherit" });
  execFileSync("ld.lld", [...LDFLAGS, "-o", out, object], { stdio: "inherit" });
  binary = readFileSync(out);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
const sha = (bytes) => createHash("sha256").update(bytes).digest("hex");

if (check) {
  let committed;
  try {
    committed = readFileSync(target);
  } catch {
    committed = Buffer.alloc(0);
  }
  if (!committed.equals(binary)) {
    console.error(
      `build-native --check: ${target} (sha256 ${sha(committed)}) does not match a rebuild of native/huge-pages.c (sha256 ${sha(binary)}); run node scripts/build-native.mjs and commit the result`,
    );
    process.exit(1);
  }
  console.log(
    `build-native --check: the committed addon matches a rebuild (sha256 ${sha(binary)})`,
  );
} else {
  writeFileSync(target, binary);
  console.log(`build-native: wrote ${target} (${binary.length} bytes, sha256 ${sha(binary)})`);
}
