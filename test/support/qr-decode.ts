// The tests read ticket images with the same decoders as the scripts (tools/lib/ticket-qr.mjs).
// ZXing's wasm arrives compiled (wrangler's `*.wasm` rule; the package types the
// import as a URL string for other bundlers): workerd compiles no wasm from bytes.
import zxingWasm from "zxing-wasm/reader/zxing_reader.wasm";
import { useZxingWasm } from "../../tools/lib/ticket-qr.mjs";

useZxingWasm(zxingWasm as unknown as WebAssembly.Module);

export {
  PNG_SIGNATURE,
  RECEIPT_WIDTH,
  decodeQrPng,
  pngToRgba,
  readWithZxingDetails,
  readingsOf,
} from "../../tools/lib/ticket-qr.mjs";
