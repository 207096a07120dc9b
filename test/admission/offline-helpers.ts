// Uploading offline scans in tests (test/admission/offline*.test.ts).
import { expect } from "vitest";
import { api } from "../support/helpers";
import { ticketCodeOf } from "../support/ticket-codes";

export const HOUR = 3_600_000;
export const MINUTE = 60_000;

export type Scan = { scanId: string; code: string; scannedAt: string };
export type Result = { scanId: string; outcome: string; ticketId?: string; scannedAt: string; deviceScannedAt: string; admittedAt?: string };
export type Conflict = Omit<Result, "outcome"> & { outcome: string; gate: string };

/** Sends an upload (by default as the gate, its clock right: `sentAt` now). */
export function upload(scans: Scan[], options: { as?: "gate" | "admin" | "sales"; sentAt?: string; headers?: Record<string, string> } = {}) {
  return api("/v1.1/admissions/offline", {
    method: "POST",
    as: options.headers?.Authorization ? null : (options.as ?? "gate"),
    json: { sentAt: options.sentAt ?? new Date().toISOString(), scans },
    headers: options.headers,
  });
}

export async function resultsOf(res: Response): Promise<Result[]> {
  expect(res.status).toBe(200);
  return ((await res.json()) as { results: Result[] }).results;
}

/** A scan of `code` made `ago` milliseconds before now (by a right clock). */
export function scanOf(code: string, ago = MINUTE): Scan {
  return { scanId: crypto.randomUUID(), code, scannedAt: new Date(Date.now() - ago).toISOString() };
}

/** The code the ticket's image carries. */
export function codeOf(ticket: { ticketId: string }) {
  return ticketCodeOf(ticket.ticketId);
}

