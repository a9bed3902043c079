import react from "@vitejs/plugin-react"
import { defaultClientConditions, defineConfig } from "vite"

// Relative asset URLs: the same build works at /studio/ and under a host's prefix.
// The workspace packages are read from their sources, so the Studio builds without them built.
export default defineConfig(({ command }) => {
  // A build is what authors get, whatever NODE_ENV it runs under. Vite takes the bundle's
  // NODE_ENV (and development JSX) from the environment, so a build made under vitest ("test":
  // the browser suites' `npm start` and their own builds) was a development React without
  // React Aria's browser-only code: not what ships. Vite reads it after loading this file.
  if (command === "build") process.env.NODE_ENV = "production"
  return {
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
  }
})
