// Admission at the gate (docs/admission.md): the signed code first, then one batch.
import { PROBLEM_TYPES, ProblemError } from "../http/problem";
import { addKeyCompletion, keyStillInProgress, runKeyed } from "../idempotency/keys";
import { claimHeld, type IdempotencyClaimHeld } from "../idempotency/statements";
import sql from "sql-template-tag";
import { Batch, type Db } from "../platform/batch";
import type { Admission } from "./schemas";
import { alreadyAdmitted, ticketCancelled } from "../tickets/problems";
import { type AdmissionJudgement, admissionJudgement, markAdmittedBy, selectAdmissionJudgement } from "../tickets/statements/admission";
import { selectTicket, type TicketRow } from "../tickets/statements/rows";
import { type AdmissionRecord, admissionMade, admissionsAmong, insertAdmission, selectAdmission, selectAdmissionOf, ticketOfAdmission } from "./statements";
import { ticketFacts } from "../tickets/status";
import { boundMoment, type GateContext, invalidTicketCode, type ScanMomentValues, scanMomentAt, scannedCodeOf } from "./judging";

export type AdmissionContext = GateContext & {
  /** Makes the admission safe to retry (scoped to `gate`). */
  idempotencyKey?: string;
};

/** The 201 answer of an admission on record, with its ticket. */
function admissionOf(ticket: TicketRow, admission: AdmissionRecord): Admission {
  return { admissionId: admission.admission_id, ...ticketFacts(ticket), admittedAt: ticket.admitted_at!, gate: admission.gate };
}

/** The refusal of a scan now, from the ticket as it stands after the batch and its judgement then. */
function refusalOf(row: TicketRow, judged: { judgement: AdmissionJudgement; time_close: string | null }, onRecord: AdmissionRecord | null, moment: ScanMomentValues, earlyMinutes: number): ProblemError {
  switch (judged.judgement) {
    case "already-admitted":
      return alreadyAdmitted(row.ticket_id, row.admitted_at!, onRecord?.gate);
    case "ticket-cancelled":
    case "cancelled-after-entry":
      return ticketCancelled(row.ticket_id, row.cancelled_at!);
    case "not-valid-today":
      return new ProblemError(422, {
        type: PROBLEM_TYPES.notValidToday,
        title: "Not valid today",
        detail: `This ticket is for ${row.ticket_date}, not today (${moment.today}).`,
        extensions: { ticketId: row.ticket_id, ticketDate: row.ticket_date },
      });
    case "too-early":
      return new ProblemError(422, {
        type: PROBLEM_TYPES.tooEarly,
        title: "Too early",
        detail: `This ticket's entry time is ${row.entry_time}; it is admitted from ${earlyMinutes} minutes before.`,
        extensions: { ticketId: row.ticket_id, entryTime: row.entry_time },
      });
    case "too-late":
      return new ProblemError(422, {
        type: PROBLEM_TYPES.tooLate,
        title: "Too late",
        detail: `The museum closed at ${judged.time_close} today; this ticket is no longer admitted.`,
        extensions: { ticketId: row.ticket_id, timeClose: judged.time_close },
      });
    case "invalid-ticket-code":
      return invalidTicketCode();
    case "admittable":
      // The batch admits an admittable ticket; only a concurrent change between its statements could leave one.
      throw new Error(`Ticket ${row.ticket_id} was admittable yet not admitted`);
  }
}

/**
 * Admits the ticket a scanned code names. A code whose signature does not
 * verify is refused before any database access. Otherwise one batch (one
 * round trip) admits the ticket if the rules of admission allow it now
 * (tickets' `admissionJudgement`), and reads the ticket, its admission and
 * that judgement as they then stand, which decides the answer.
 */
async function admitOnce(db: Db, code: string, context: AdmissionContext, claim: IdempotencyClaimHeld | undefined): Promise<Admission> {
  const scanned = await scannedCodeOf(code, context);
  if (!scanned) throw invalidTicketCode();

  const { ticketId } = scanned;
  const admissionId = crypto.randomUUID();
  const moment = scanMomentAt(context.now, context.timeZone, context.earlyMinutes);
  const legacyCode = sql`${scanned.legacy ? 1 : 0}`;
  const batch = new Batch(db);
  batch.addAll(
    insertAdmission(
      db,
      { admissionId, ticketId, gate: context.gate, admittedAt: moment.at },
      sql`${admissionJudgement(sql`${ticketId}`, boundMoment(moment), legacyCode)} = 'admittable'`,
      claim ? claimHeld(claim) : sql`1`,
    ),
    markAdmittedBy(db, admissionsAmong(sql`${admissionId}`)),
  );
  const held =
    claim &&
    addKeyCompletion(batch, claim, {
      resourceId: admissionId,
      body: JSON.stringify({ admissionId }),
      written: admissionMade(admissionId),
    });
  const [ticket, admission, judged] = batch.addAll(
    selectTicket(db, ticketId, null),
    selectAdmissionOf(db, ticketId),
    selectAdmissionJudgement(db, ticketId, boundMoment(moment), legacyCode),
  );
  await batch.run();
  const row = ticket.value;
  // A genuine code for a ticket this database does not hold (it was signed
  // by another deployment sharing the key, or the data was reset) is not a
  // ticket of this museum either.
  if (!row || !judged.value) throw invalidTicketCode();
  if (held && !held.value) throw keyStillInProgress();

  const onRecord = admission.value;
  if (onRecord !== null && onRecord.admission_id === admissionId) return admissionOf(row, onRecord);
  throw refusalOf(row, judged.value, onRecord, moment, context.earlyMinutes);
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
