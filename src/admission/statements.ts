// The admission feature's table (admissions): every statement on it, and the
// read fragments other features may put in theirs. The ticket's own state
// (`admitted_at`) is the tickets feature's (tickets/statements.ts).
import sql, { type Sql } from "sql-template-tag";
import { type Db, read, type Step, step } from "../platform/batch";

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
