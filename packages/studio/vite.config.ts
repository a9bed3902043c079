import react from "@vitejs/plugin-react"
import { defaultClientConditions, defineConfig } from "vite"

// Relative asset URLs: the same build works at /studio/ and under a host's prefix.
// The workspace packages are read from their sources, so the Studio builds without them built.
export default defineConfig({
  base: "./",
  plugins: [react()],
  resolve: { conditions: ["@coursekit/source", ...defaultClientConditions] },
  build: {
    outDir: "dist",
    emptyOutDir: true,
    // No inline scripts or styles: the Content-Security-Policy allows neither.
    assetsInlineLimit: 0,
    modulePreload: { polyfill: false }
  }
})
