import { defineConfig } from "vite";

// Plain TypeScript and DOM, no framework plugin. Workspace packages resolve to
// their published dist files (as for any npm user), so `pnpm build` builds them first.
export default defineConfig({
  base: "./",
  build: { target: "es2022", outDir: "dist", emptyOutDir: true },
});
