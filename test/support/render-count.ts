import { Resvg } from "@resvg/resvg-wasm";
import { afterEach, vi } from "vitest";

/**
 * Counts ticket renders (resvg rasterisations) in this isolate from now on,
 * the Worker's included: to prove that a cached image is not drawn again.
 */
export function countRenders(): { readonly renders: number } {
  const render = vi.spyOn(Resvg.prototype, "render");
  return {
    get renders() {
      return render.mock.calls.length;
    },
  };
}

afterEach(() => {
  vi.restoreAllMocks();
});
