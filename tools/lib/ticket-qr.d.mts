import type { QRCode } from "jsqr";

export declare const PNG_SIGNATURE: number[];
export type DecodedImage = { width: number; height: number; rgba: Uint8ClampedArray };
export declare function pngToRgba(bytes: Uint8Array | ArrayBuffer): DecodedImage;
export declare function decodeQrPng(bytes: Uint8Array | ArrayBuffer): (QRCode & { width: number; height: number }) | null;
export declare const RECEIPT_WIDTH: number;
export declare function useZxingWasm(module: WebAssembly.Module): void;
export declare function readWithZxingDetails(image: DecodedImage): Promise<{ text: string; mirrored: boolean } | null>;
/** What one decoder (QR_DECODERS of ticket-qr.mjs) read at one width. */
export type QrReading = { decoder: "jsQR" | "ZXing"; width: number; text: string | null };
export declare function readingsOf(pngBytes: Uint8Array | ArrayBuffer): Promise<QrReading[]>;
export declare function readTicketCode(pngBytes: Uint8Array | ArrayBuffer): Promise<string>;
export declare function ticketIdOfCode(code: string): string;
