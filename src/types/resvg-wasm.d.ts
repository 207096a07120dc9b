// wrangler bundles `*.wasm` imports as compiled modules (its default CompiledWasm rule).
declare module "@resvg/resvg-wasm/index_bg.wasm" {
  const module: WebAssembly.Module;
  export default module;
}
