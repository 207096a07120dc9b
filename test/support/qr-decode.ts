// The tests read ticket images with the same decoder as the scripts (tools/lib/ticket-qr.mjs).
export { PNG_SIGNATURE, decodeQrPng, pngToRgba } from "../../tools/lib/ticket-qr.mjs";
