/** A TCP port on 127.0.0.1 that was free a moment ago, for a process that takes its port as an argument. */
import { createServer } from "node:http"
import type { AddressInfo } from "node:net"

export const freePort = () =>
  new Promise<number>((done) => {
    const probe = createServer().listen(0, "127.0.0.1", () => {
      const { port } = probe.address() as AddressInfo
      probe.close(() => done(port))
    })
  })
