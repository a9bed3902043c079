// Coursekit runs in Node on the server side: load it (and Effect) from node_modules as
// they are published instead of bundling them into the route.
/** @type {import("next").NextConfig} */
export default {
  serverExternalPackages: ["@coursekit/core", "@coursekit/http"]
}
