import { ProviderCooldowns } from "../../src/index.ts"
import { providerCooldownsSuite } from "../../src/testing/index.ts"

providerCooldownsSuite("in-memory", ProviderCooldowns.layerMemory)
