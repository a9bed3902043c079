/**
 * The standalone Coursekit service as a layer, and its configuration.
 *
 * @since 0.1.0
 */
export * as AdminTokenFile from "./AdminTokenFile.ts"
export * as ServerConfig from "./ServerConfig.ts"
export * as StandaloneServer from "./StandaloneServer.ts"
