// The admission feature's tables (admissions, offline_scans): every statement
// on them, and the read fragments other features may put in theirs. The ticket's own state
// (`admitted_at`) is the tickets feature's (tickets/statements/).
import sql, { raw, type Sql } from "sql-template-tag";
import { type Db, read, type Step, step } from "../platform/batch";
import type { IsoDate } from "../platform/dates";
import type { ScanMoment } from "../tickets/statements/admission";

export type AdmissionAttempt = { admissionId: string; ticketId: string; gate: string; admittedAt: string };

/** An admission on record: its id and the gate that admitted. */
export type AdmissionRecord = { admission_id: string; gate: string };

/**
 * Records the admission while `admittable` (an SQL condition: the ticket can
 * be admitted now) and `guard` (an Idempotency-Key's claim) hold. UNIQUE
 * (ticket_id) with ON CONFLICT DO NOTHING makes it succeed once per ticket
 * however many gates try at the same moment.
 */
export function insertAdmission(db: Db, attempt: AdmissionAttempt, admittable: Sql, guard: Sql): Step<void> {
  return step(
    db,
    sql`INSERT INTO admissions (admission_id, ticket_id, admitted_at, gate)
        SELECT ${attempt.admissionId}, ${attempt.ticketId}, ${attempt.admittedAt}, ${attempt.gate}
         WHERE ${admittable} AND ${guard}
        ON CONFLICT (ticket_id) DO NOTHING`,
    read.nothing,
  );
}

/** The admission on record for the ticket `ticketId`, or null. */
export function selectAdmissionOf(db: Db, ticketId: string): Step<AdmissionRecord | null> {
  return step(db, sql`SELECT admission_id, gate FROM admissions WHERE ticket_id = ${ticketId}`, read.first<AdmissionRecord>());
}

/** The admission `admissionId`, or null. */
export function selectAdmission(db: Db, admissionId: string): Step<AdmissionRecord | null> {
  return step(db, sql`SELECT admission_id, gate FROM admissions WHERE admission_id = ${admissionId}`, read.first<AdmissionRecord>());
}

/** The ticket the admission `admissionId` admitted (an SQL expression, for the tickets' reads). */
export function ticketOfAdmission(admissionId: string): Sql {
  return sql`(SELECT ticket_id FROM admissions WHERE admission_id = ${admissionId})`;
}

/** True once the admission `admissionId` is on record. */
export function admissionMade(admissionId: string): Sql {
  return sql`EXISTS (SELECT 1 FROM admissions WHERE admission_id = ${admissionId})`;
}

/** What an offline scan can come to (docs/admission.md, "Offline gates"). */
type OfflineOutcome =
  | "admitted"
  | "already-admitted"
  | "ticket-cancelled"
  | "cancelled-after-entry"
  | "not-valid-today"
  | "too-early"
  | "too-late"
  | "invalid-ticket-code"
  | "rejected";

/**
 * One scan of an upload, as the upload's statements read it: the whole
 * upload is bound once as a JSON array of these, in scan order.
 */
export type OfflineScanInput = {
  scanId: string;
  codeSha256: string;
  /** The ticket a genuine code names (null: the code is not genuine). */
  ticketId: string | null;
  /** The code is of the earlier kind (HMAC, `MT1.…`). */
  legacyCode: boolean;
  deviceScannedAt: string;
  /** The corrected scan time and the museum's date, time and latest entry time then. */
  at: string;
  today: string;
  time: string;
  latestEntryTime: string;
  /** Too old or too far ahead to be judged. */
  rejected: boolean;
  /** The admission's id, should this scan admit its ticket. */
  admissionId: string;
};

/** A field of the upload's scan `s` (a row of json_each), as SQL. */
const scanField = (field: keyof OfflineScanInput) => sql`(s.value ->> ${raw(`'${field}'`)})`;

/** The scan `s`'s moment, for the rules of admission (tickets' `admissionJudgement`). */
export const SCAN_MOMENT: ScanMoment = {
  at: scanField("at"),
  today: scanField("today"),
  time: scanField("time"),
  latestEntryTime: scanField("latestEntryTime"),
};

/** Whether the scan `s`'s code is of the earlier kind, for the rules of admission (tickets' `admissionJudgement`). */
export const SCAN_LEGACY_CODE: Sql = scanField("legacyCode");

/** The upload's scans as the rows `s` of json_each, in scan order. */
const scansOf = (scans: OfflineScanInput[]) => sql`json_each(${JSON.stringify(scans)}) s`;

/** True when `gate` already uploaded the scan `s` (its scanId). */
const scanKnown = (gate: string) =>
  sql`EXISTS (SELECT 1 FROM offline_scans o WHERE o.gate = ${gate} AND o.scan_id = ${scanField("scanId")})`;

/** True when some scan of the upload reuses a scanId `gate` uploaded before with another code. */
export function scanIdReused(gate: string, scans: OfflineScanInput[]): Sql {
  return sql`EXISTS (SELECT 1 FROM ${scansOf(scans)} JOIN offline_scans o ON o.gate = ${gate} AND o.scan_id = ${scanField("scanId")}
                      WHERE o.code_sha256 <> ${scanField("codeSha256")})`;
}

/** The code hash `gate` uploaded each of `scanIds` with before, by scanId. */
export function selectScanCodes(db: Db, gate: string, scanIds: string[]): Step<Map<string, string>> {
  return step(
    db,
    sql`SELECT scan_id, code_sha256 FROM offline_scans
         WHERE gate = ${gate} AND scan_id IN (SELECT value FROM json_each(${JSON.stringify(scanIds)}))`,
    (result) => new Map(read.rows<{ scan_id: string; code_sha256: string }>()(result).map((row) => [row.scan_id, row.code_sha256])),
  );
}

/**
 * True when an earlier upload recorded the ticket `ticketId` (an SQL
 * expression) as entered, then cancelled: its `cancelled-after-entry` scan
 * (the partial index of migrations/0020). An entry that admitted is the
 * ticket's admission, which its judgement reads already.
 */
const entryRecorded = (ticketId: Sql) =>
  sql`EXISTS (SELECT 1 FROM offline_scans o WHERE o.ticket_id = ${ticketId} AND o.outcome = 'cancelled-after-entry')`;

/**
 * Records the upload's new scans with their outcome: rejected; else the
 * judgement at the scan's moment (`judgement` of a ticket, tickets'
 * `admissionJudgement` of the scan `s`; NULL, no such ticket: not genuine).
 * A scan judged `admittable` or `cancelled-after-entry` is an entry; a
 * ticket has one first entry, `admitted` (or, cancelled since the scan,
 * `cancelled-after-entry`: used, then refunded), and every later one is
 * `already-admitted`. First is the first to reach the service (an entry an
 * earlier request recorded), then, within the upload, the earliest by
 * corrected `scannedAt` (ties: upload order). A scanId `gate` uploaded
 * before keeps its row. `ticketDate`: the date of a ticket (tickets'
 * `ticketDateOf`). The scans are read once (MATERIALIZED, before any row is
 * written), each judged once.
 */
export function insertOfflineScans(
  db: Db,
  gate: string,
  scans: OfflineScanInput[],
  judgement: (ticketId: Sql) => Sql,
  ticketDate: (ticketId: Sql) => Sql,
): Step<void> {
  const ticketId = scanField("ticketId");
  return step(
    db,
    sql`WITH judged AS MATERIALIZED (
          SELECT s.key, s.value, ${ticketId} AS ticket_id, ${ticketDate(ticketId)} AS ticket_date, ${scanField("at")} AS at,
                 ${scanField("rejected")} AS rejected, ${judgement(ticketId)} AS judgement, ${scanKnown(gate)} AS known,
                 ${entryRecorded(ticketId)} AS entry_recorded
            FROM ${scansOf(scans)}),
        entries AS (
          SELECT key, judgement, entry_recorded, row_number() OVER (PARTITION BY ticket_id ORDER BY at, key) AS nth
            FROM judged
           WHERE judgement IN ('admittable', 'cancelled-after-entry') AND NOT rejected AND NOT known)
        INSERT INTO offline_scans (gate, scan_id, code_sha256, ticket_id, ticket_date, device_scanned_at, scanned_at, scanned_on, outcome)
        SELECT ${gate}, ${scanField("scanId")}, ${scanField("codeSha256")}, CASE WHEN s.ticket_date IS NOT NULL THEN s.ticket_id END,
               s.ticket_date, ${scanField("deviceScannedAt")}, s.at, ${scanField("today")},
               CASE WHEN s.rejected THEN 'rejected'
                    WHEN e.key IS NULL THEN coalesce(s.judgement, 'invalid-ticket-code')
                    WHEN e.nth = 1 AND NOT e.entry_recorded THEN CASE e.judgement WHEN 'admittable' THEN 'admitted' ELSE e.judgement END
                    ELSE 'already-admitted' END
          FROM judged s LEFT JOIN entries e ON e.key = s.key
         WHERE NOT s.known
         ORDER BY s.key
        ON CONFLICT (gate, scan_id) DO NOTHING`,
    read.nothing,
  );
}

/**
 * Records the admissions of the upload's scans just recorded `admitted`: at
 * the scan's corrected time, by `gate`. UNIQUE (ticket_id) keeps it to one
 * per ticket whatever else was admitted (a scan sent again admits nothing).
 */
export function insertOfflineAdmissions(db: Db, gate: string, scans: OfflineScanInput[]): Step<void> {
  return step(
    db,
    sql`INSERT INTO admissions (admission_id, ticket_id, admitted_at, gate)
        SELECT ${scanField("admissionId")}, o.ticket_id, o.scanned_at, o.gate
          FROM ${scansOf(scans)} JOIN offline_scans o ON o.gate = ${gate} AND o.scan_id = ${scanField("scanId")}
         WHERE o.outcome = 'admitted'
         ORDER BY s.key
        ON CONFLICT (ticket_id) DO NOTHING`,
    read.nothing,
  );
}

/** The admissions `admissionIds` (an SQL list or query of ids) on record, as `ticket_id, admitted_at` (for the tickets to follow). */
export function admissionsAmong(admissionIds: Sql): Sql {
  return sql`SELECT ticket_id, admitted_at FROM admissions WHERE admission_id IN (${admissionIds})`;
}

/** The admissions the upload's scans just recorded (`admissionsAmong`). */
export function admissionsOfUpload(scans: OfflineScanInput[]): Sql {
  return admissionsAmong(sql`SELECT ${scanField("admissionId")} FROM ${scansOf(scans)}`);
}

/** An offline scan on record, with its ticket's admission time where it has one. */
export type OfflineScanRecord = {
  scan_id: string;
  ticket_id: string | null;
  outcome: OfflineOutcome;
  scanned_at: string;
  device_scanned_at: string;
  gate: string;
  admitted_at: string | null;
};

const OFFLINE_SCAN_RECORD = sql`o.scan_id, o.ticket_id, o.outcome, o.scanned_at, o.device_scanned_at, o.gate, a.admitted_at`;

/** The scans `gate` uploaded with the ids `scanIds`, by scanId. */
export function selectOfflineScans(db: Db, gate: string, scanIds: string[]): Step<Map<string, OfflineScanRecord>> {
  return step(
    db,
    sql`SELECT ${OFFLINE_SCAN_RECORD} FROM offline_scans o LEFT JOIN admissions a ON a.ticket_id = o.ticket_id
         WHERE o.gate = ${gate} AND o.scan_id IN (SELECT value FROM json_each(${JSON.stringify(scanIds)}))`,
    (result) => new Map(read.rows<OfflineScanRecord>()(result).map((row) => [row.scan_id, row])),
  );
}

/** Conflicts: scans judged, and not admitted. */
const CONFLICT = sql`o.outcome NOT IN ('admitted', 'rejected')`;

/**
 * The conflicts of `date`: scans of its tickets, and scans made that day
 * whose code named no ticket (the two partial indexes of 0016), in upload order.
 */
function conflictsOn(date: IsoDate): Sql {
  return sql`SELECT o.position FROM offline_scans o WHERE o.ticket_date = ${date} AND o.ticket_id IS NOT NULL AND ${CONFLICT}
             UNION ALL
             SELECT o.position FROM offline_scans o WHERE o.scanned_on = ${date} AND o.ticket_id IS NULL AND ${CONFLICT}`;
}

/** The conflicts of `date` in upload order, with their ticket's admission time where it has one. */
export function selectConflicts(db: Db, date: IsoDate): Step<OfflineScanRecord[]> {
  return step(
    db,
    sql`SELECT ${OFFLINE_SCAN_RECORD} FROM offline_scans o LEFT JOIN admissions a ON a.ticket_id = o.ticket_id
         WHERE o.position IN (${conflictsOn(date)}) ORDER BY o.position`,
    read.rows<OfflineScanRecord>(),
  );
}

/** How many conflicts `date` has. */
export function countConflicts(db: Db, date: IsoDate): Step<number> {
  return step(db, sql`SELECT count(*) AS n FROM (${conflictsOn(date)})`, (result) => read.first<{ n: number }>()(result)!.n);
}
