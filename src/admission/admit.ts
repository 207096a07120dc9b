// Admission at the gate (docs/admission.md): the signed code first, then one batch.
import { PROBLEM_TYPES, ProblemError } from "../http/problem";
import { addKeyCompletion, keyStillInProgress, runKeyed } from "../idempotency/keys";
import { claimHeld, type IdempotencyClaimHeld } from "../idempotency/statements";
import sql from "sql-template-tag";
import { Batch, type Db } from "../platform/batch";
import type { IsoDate } from "../platform/dates";
import { minutesOf, timeOf } from "../hours/calendar";
import { dayPlanOn, planField, selectClosingTime } from "../hours/statements";
import { type CodeKeySet, looksLikeTicketCode, type SigningKeys, verifyTicketCode, verifyTicketToken } from "../ticket-image";
import type { Admission } from "./schemas";
import { alreadyAdmitted, ticketCancelled } from "../tickets/problems";
import { markAdmitted, selectTicket, ticketAdmittable, type TicketRow } from "../tickets/statements";
import { type AdmissionRecord, admissionMade, insertAdmission, selectAdmission, selectAdmissionOf, ticketOfAdmission } from "./statements";
import { ticketFacts } from "../tickets/status";

export type AdmissionContext = {
  /** The Ed25519 keys of today's codes. */
  codeKeys: CodeKeySet;
  /** The HMAC keys of codes printed before them. */
  keys: SigningKeys;
  /** Today in the museum's time zone. */
  today: IsoDate;
  /** The museum's time now (`HH:mm`). */
  time: string;
  /** How long before its entry time a timed ticket is admitted (ADMISSION_EARLY_MINUTES). */
  earlyMinutes: number;
  /** The admitting account's name. */
  gate: string;
  now: Date;
  /** Makes the admission safe to retry (scoped to `gate`). */
  idempotencyKey?: string;
};

/** One answer for every code that is not genuine, so a forger learns nothing about which check failed. */
function invalidTicketCode(): ProblemError {
  return new ProblemError(422, {
    type: PROBLEM_TYPES.invalidTicketCode,
    title: "Invalid ticket code",
    detail: "This code is not a genuine ticket of this museum.",
  });
}

/** The ticket a genuine code names, or null: an Ed25519 code, or an HMAC one printed before those. */
async function ticketIdOfCode(code: string, context: AdmissionContext): Promise<string | null> {
  if (looksLikeTicketCode(code)) return (await verifyTicketCode(code, context.codeKeys))?.tid ?? null;
  return (await verifyTicketToken(code, context.keys))?.ticketId ?? null;
}

/** The 201 answer of an admission on record, with its ticket. */
function admissionOf(ticket: TicketRow, admission: AdmissionRecord): Admission {
  return { admissionId: admission.admission_id, ...ticketFacts(ticket), admittedAt: ticket.admitted_at!, gate: admission.gate };
}

/**
 * Admits the ticket a scanned code names. A code whose signature does not
 * verify is refused before any database access. Otherwise one batch (one
 * round trip) admits the ticket if it is valid and for today, and reports
 * the ticket as it then stands, which decides the answer:
 * admitted now (this request's admission is on record), already admitted,
 * cancelled (whatever its date), not for today, too late (a general ticket
 * after today's closing time, read in the same batch) or too early.
 */
async function admitOnce(db: Db, code: string, context: AdmissionContext, claim: IdempotencyClaimHeld | undefined): Promise<Admission> {
  const ticketId = await ticketIdOfCode(code, context);
  if (!ticketId) throw invalidTicketCode();

  const admissionId = crypto.randomUUID();
  const admittedAt = context.now.toISOString();
  const latestEntryTime = timeOf(Math.min(minutesOf(context.time) + context.earlyMinutes, 24 * 60 - 1));
  const batch = new Batch(db);
  batch.add(
    insertAdmission(
      db,
      { admissionId, ticketId, gate: context.gate, admittedAt },
      ticketAdmittable(ticketId, { today: context.today, time: context.time, latestEntryTime }, planField(dayPlanOn(sql`${context.today}`), "timeClose")),
      claim ? claimHeld(claim) : sql`1`,
    ),
  );
  batch.add(markAdmitted(db, ticketId, admittedAt, admissionMade(admissionId)));
  const held =
    claim &&
    addKeyCompletion(batch, claim, {
      resourceId: admissionId,
      body: JSON.stringify({ admissionId }),
      written: admissionMade(admissionId),
    });
  const ticket = batch.add(selectTicket(db, ticketId, null));
  const admission = batch.add(selectAdmissionOf(db, ticketId));
  const closes = batch.add(selectClosingTime(db, context.today));
  await batch.run();
  const row = ticket.value;
  // A genuine code for a ticket this database does not hold (it was signed
  // by another deployment sharing the key, or the data was reset) is not a
  // ticket of this museum either.
  if (!row) throw invalidTicketCode();
  if (held && !held.value) throw keyStillInProgress();

  const onRecord = admission.value;
  if (onRecord !== null && onRecord.admission_id !== admissionId) {
    throw alreadyAdmitted(row.ticket_id, row.admitted_at!, onRecord.gate);
  }
  if (row.cancelled_at !== null) throw ticketCancelled(row.ticket_id, row.cancelled_at);
  const timeClose = closes.value;
  if (onRecord === null && row.ticket_date === context.today && row.ticket_type === "general" && timeClose !== null && context.time >= timeClose) {
    throw new ProblemError(422, {
      type: PROBLEM_TYPES.tooLate,
      title: "Too late",
      detail: `The museum closed at ${timeClose} today; this ticket is no longer admitted.`,
      extensions: { ticketId: row.ticket_id, timeClose },
    });
  }
  if (onRecord === null && row.ticket_date === context.today && row.entry_time !== null) {
    throw new ProblemError(422, {
      type: PROBLEM_TYPES.tooEarly,
      title: "Too early",
      detail: `This ticket's entry time is ${row.entry_time}; it is admitted from ${context.earlyMinutes} minutes before.`,
      extensions: { ticketId: row.ticket_id, entryTime: row.entry_time },
    });
  }
  if (onRecord === null) {
    throw new ProblemError(422, {
      type: PROBLEM_TYPES.notValidToday,
      title: "Not valid today",
      detail: `This ticket is for ${row.ticket_date}, not today (${context.today}).`,
      extensions: { ticketId: row.ticket_id, ticketDate: row.ticket_date },
    });
  }
  return admissionOf(row, onRecord);
}

/**
 * Admits a scanned ticket under the gate's Idempotency-Key (if any): a gate
 * whose 201 was lost sends the scan again with the same key and gets that
 * 201 again (`replayed`), not 409 already-admitted for its own admission.
 */
export async function admit(db: Db, code: string, context: AdmissionContext): Promise<{ admission: Admission; replayed: boolean }> {
  const { result, replayed } = await runKeyed<{ admissionId: string }, Admission>({
    db,
    scope: { accountName: context.gate, operation: "admitTicket", key: context.idempotencyKey },
    request: { code },
    run: (claim) => admitOnce(db, code, context, claim),
    replay: async ({ admissionId }) => {
      const batch = new Batch(db);
      const ticket = batch.add(selectTicket(db, ticketOfAdmission(admissionId), null));
      const admission = batch.add(selectAdmission(db, admissionId));
      await batch.run();
      // The admission's row is never deleted: its key's answer is always there.
      if (!ticket.value || !admission.value) throw new Error(`Admission ${admissionId} of a stored key is missing`);
      return admissionOf(ticket.value, admission.value);
    },
    now: context.now,
  });
  return { admission: result, replayed };
}
