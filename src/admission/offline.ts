// Scans a gate made offline, uploaded later (docs/admission.md, "Offline
// gates"): each judged at its own corrected time by the rules of admission,
// all of an upload in one batch, so exactly one scan of a ticket admits it
// whatever else reaches the service at the same moment.
import { type FieldError, PROBLEM_TYPES, ProblemError } from "../http/problem";
import { Batch, type Db, runStep } from "../platform/batch";
import { sha256Hex } from "../platform/crypto";
import type { IsoDate } from "../platform/dates";
import { admissionJudgement, markAdmittedBy, ticketDateOf } from "../tickets/statements/admission";
import { type GateContext, scanMomentAt, scannedCodeOf } from "./judging";
import type { Conflict, OfflineResult, OfflineUpload } from "./schemas";
import {
  admissionsOfUpload,
  insertOfflineAdmissions,
  insertOfflineScans,
  type OfflineScanInput,
  type OfflineScanRecord,
  SCAN_LEGACY_CODE,
  SCAN_MOMENT,
  scanIdReused,
  selectConflicts,
  selectOfflineScans,
  selectScanCodes,
} from "./statements";

/** A scan older than this (after the correction) is rejected, not judged. */
const OLDEST_SCAN_MS = 7 * 24 * 60 * 60 * 1000;
/** A scan further ahead of the service's clock than this (after the correction) is rejected. */
const FURTHEST_AHEAD_MS = 5 * 60 * 1000;


const REUSED = "This scanId was sent before with another code.";

/** The 422 of an upload that reuses scanIds with other codes; nothing of it is recorded. */
function scanIdsReused(errors: FieldError[]): ProblemError {
  return new ProblemError(422, {
    type: PROBLEM_TYPES.scanIdReused,
    title: "scanId reused",
    detail: "A scanId of this upload was sent with another code; nothing of the upload was recorded.",
    errors,
  });
}

/** The scans of the upload that repeat an earlier scan's scanId with another code. */
function reusedWithin(upload: OfflineUpload): FieldError[] {
  const codes = new Map<string, string>();
  const errors: FieldError[] = [];
  upload.scans.forEach(({ scanId, code }, i) => {
    const first = codes.get(scanId);
    if (first === undefined) codes.set(scanId, code);
    else if (first !== code) errors.push({ path: `scans[${i}].scanId`, message: REUSED });
  });
  return errors;
}

/** Each scan as the upload's statements read it: its code checked and hashed, its time corrected by `sentAt`. */
async function inputsOf(upload: OfflineUpload, context: GateContext): Promise<OfflineScanInput[]> {
  const now = context.now.getTime();
  const correction = now - Date.parse(upload.sentAt);
  return Promise.all(
    upload.scans.map(async ({ scanId, code, scannedAt }) => {
      const at = Date.parse(scannedAt) + correction;
      const scanned = await scannedCodeOf(code, context);
      return {
        scanId,
        codeSha256: await sha256Hex(code),
        ticketId: scanned?.ticketId ?? null,
        legacyCode: scanned?.legacy ?? false,
        deviceScannedAt: new Date(scannedAt).toISOString(),
        ...scanMomentAt(new Date(at), context.timeZone, context.earlyMinutes),
        rejected: at < now - OLDEST_SCAN_MS || at > now + FURTHEST_AHEAD_MS,
        admissionId: crypto.randomUUID(),
      };
    }),
  );
}

/** A scan's answer; `admittedAt` where the scan admitted or found the ticket admitted. */
function resultOf(record: OfflineScanRecord): OfflineResult {
  const admitted = record.outcome === "admitted" || record.outcome === "already-admitted";
  return {
    scanId: record.scan_id,
    outcome: record.outcome,
    ...(record.ticket_id === null ? {} : { ticketId: record.ticket_id }),
    scannedAt: record.scanned_at,
    deviceScannedAt: record.device_scanned_at,
    ...(admitted && record.admitted_at !== null ? { admittedAt: record.admitted_at } : {}),
  };
}

/**
 * Judges and records an upload, in one batch (one D1 round trip; a reused
 * scanId: one more, to name it): a guard refuses the whole upload when a
 * scanId comes back with another code; then every new scan with its
 * outcome at its own time (a ticket's first entry admits it, or is
 * `cancelled-after-entry`; its later ones are `already-admitted`),
 * their admissions, the tickets they admit, and the upload's scans as
 * recorded (a scanId sent before answers its first result). D1 runs one
 * write at a time, so nothing comes between a judgement and its admission.
 */
export async function judgeUpload(db: Db, upload: OfflineUpload, context: GateContext): Promise<OfflineResult[]> {
  const within = reusedWithin(upload);
  if (within.length > 0) throw scanIdsReused(within);
  const scans = await inputsOf(upload, context);
  const scanIds = scans.map((scan) => scan.scanId);
  const judgement = (ticketId: Parameters<typeof admissionJudgement>[0]) => admissionJudgement(ticketId, SCAN_MOMENT, SCAN_LEGACY_CODE);

  const batch = new Batch(db);
  batch.guard(scanIdReused(context.gate, scans), async () => {
    const stored = await runStep(selectScanCodes(db, context.gate, scanIds));
    const errors = scans.flatMap((scan, i) => {
      const code = stored.get(scan.scanId);
      return code !== undefined && code !== scan.codeSha256 ? [{ path: `scans[${i}].scanId`, message: REUSED }] : [];
    });
    return errors.length > 0 ? scanIdsReused(errors) : null;
  });
  batch.addAll(
    insertOfflineScans(db, context.gate, scans, judgement, ticketDateOf),
    insertOfflineAdmissions(db, context.gate, scans),
    markAdmittedBy(db, admissionsOfUpload(scans)),
  );
  const recorded = batch.add(selectOfflineScans(db, context.gate, scanIds));
  await batch.run();

  return scanIds.map((scanId) => {
    const record = recorded.value.get(scanId);
    if (!record) throw new Error(`Offline scan ${scanId} is not on record after its upload`);
    return resultOf(record);
  });
}

/** The conflicts of `date` in upload order (one query). */
export async function conflictsOn(db: Db, date: IsoDate): Promise<Conflict[]> {
  return (await runStep(selectConflicts(db, date))).map((record) => ({
    scanId: record.scan_id,
    ...(record.ticket_id === null ? {} : { ticketId: record.ticket_id }),
    scannedAt: record.scanned_at,
    deviceScannedAt: record.device_scanned_at,
    gate: record.gate,
    outcome: record.outcome as Conflict["outcome"],
    ...(record.admitted_at === null ? {} : { admittedAt: record.admitted_at }),
  }));
}
