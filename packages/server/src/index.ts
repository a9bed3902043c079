/**
 * The standalone Coursekit service as a layer, its configuration, and its default
 * services for hosts that embed Coursekit.
 *
 * @since 0.1.0
 */
export * as AdminTokenFile from "./AdminTokenFile.ts"
export * as DefaultServices from "./DefaultServices.ts"
export * as Png from "./Png.ts"
export * as ServerConfig from "./ServerConfig.ts"
export * as StandaloneServer from "./StandaloneServer.ts"
export * as WorkerHtmlSanitizer from "./WorkerHtmlSanitizer.ts"
