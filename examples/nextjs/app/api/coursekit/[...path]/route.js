// Every method under /api/coursekit goes to Coursekit's Web handler.
import { coursekit } from "../../../../lib/coursekit.mjs"

export const runtime = "nodejs"
export const dynamic = "force-dynamic"

const handle = (request) => coursekit.handler(request)
export { handle as DELETE, handle as GET, handle as HEAD, handle as PATCH, handle as POST, handle as PUT }
