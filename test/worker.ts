/**
 * The Worker the tests drive (vitest.config.ts points the pool's `main`
 * here): the production Worker, with its D1 binding wrapped by the fault
 * seam (./d1-faults.ts). Test-only code stays out of src/ and the bundle.
 */
import worker from "../src/index";
import { withD1Faults } from "./d1-faults";

export default {
  ...worker,
  fetch: (request, env, ctx) => worker.fetch(request, { ...env, DB: withD1Faults(env.DB) }, ctx),
} satisfies ExportedHandler<Env>;
