// Coursekit runs in Node on the server side: load it (and Effect) from node_modules as
// they are published instead of bundling them into the route.
/** @type {import("next").NextConfig} */
export default {
  serverExternalPackages: ["@coursekit/core", "@coursekit/http"],
  // Coursekit Studio lives at /api/coursekit/studio/: Next's redirect of /path/ to /path
  // would send it round in a circle with Coursekit's redirect of /studio to studio/.
  skipTrailingSlashRedirect: true
}
