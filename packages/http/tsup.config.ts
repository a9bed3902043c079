import { packageBuild } from "../../tsup.base.ts"

export default packageBuild(["src/index.ts", "src/api.ts", "src/frameworks/Express.ts", "src/frameworks/Fastify.ts", "src/frameworks/Hono.ts", "src/local-storage/LocalStorageRoutes.ts"])
