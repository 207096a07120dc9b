import type { QRCode } from "jsqr";

export declare const PNG_SIGNATURE: number[];
export type DecodedImage = { width: number; height: number; rgba: Uint8ClampedArray };
export declare function pngToRgba(bytes: Uint8Array | ArrayBuffer): DecodedImage;
export declare function decodeQrPng(bytes: Uint8Array | ArrayBuffer): (QRCode & { width: number; height: number }) | null;
export declare function readTicketCode(pngBytes: Uint8Array | ArrayBuffer): string;
export declare function ticketIdOfCode(code: string): string;
