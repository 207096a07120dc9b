// Admission at the gate (docs/admission.md): the signed code first, then one batch.
import { PROBLEM_TYPES, ProblemError } from "../../http/problem";
import { Batch, type Db } from "../../platform/batch";
import type { IsoDate } from "../../platform/dates";
import { minutesOf, timeOf } from "../../hours/calendar";
import { type SigningKeys, verifyTicketToken } from "../image/token";
import type { Admission } from "../schemas";
import { recordAdmission } from "../statements";
import { ticketFacts } from "../status";

export type AdmissionContext = {
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
};

/** One answer for every code that is not genuine, so a forger learns nothing about which check failed. */
function invalidTicketCode(): ProblemError {
  return new ProblemError(422, {
    type: PROBLEM_TYPES.invalidTicketCode,
    title: "Invalid ticket code",
    detail: "This code is not a genuine ticket of this museum.",
  });
}

/**
 * Admits the ticket a scanned code names. A code whose signature does not
 * verify is refused before any database access. Otherwise one batch (one
 * round trip) admits the ticket if it is valid and for today, and reports
 * the ticket as it then stands, which decides the answer:
 * admitted now (this request's admission is on record), already admitted,
 * cancelled (whatever its date), or not for today.
 */
export async function admit(db: Db, code: string, context: AdmissionContext): Promise<Admission> {
  const token = await verifyTicketToken(code, context.keys);
  if (!token) throw invalidTicketCode();

  const admissionId = crypto.randomUUID();
  const batch = new Batch(db);
  const [insertAdmission, markAdmitted, readBack] = recordAdmission(db, {
    admissionId,
    ticketId: token.ticketId,
    today: context.today,
    latestEntryTime: timeOf(Math.min(minutesOf(context.time) + context.earlyMinutes, 24 * 60 - 1)),
    gate: context.gate,
    admittedAt: context.now.toISOString(),
  });
  batch.add(insertAdmission);
  batch.add(markAdmitted);
  const outcome = batch.add(readBack);
  await batch.run();
  const row = outcome.value;
  // A genuine code for a ticket this database does not hold (it was signed
  // by another deployment sharing the key, or the data was reset) is not a
  // ticket of this museum either.
  if (!row) throw invalidTicketCode();

  if (row.admission_id !== null && row.admission_id !== admissionId) {
    throw new ProblemError(409, {
      type: PROBLEM_TYPES.alreadyAdmitted,
      title: "Already admitted",
      detail: `This ticket was admitted at ${row.admitted_at} by ${row.gate}.`,
      extensions: { ticketId: row.ticket_id, admittedAt: row.admitted_at, gate: row.gate },
    });
  }
  if (row.cancelled_at !== null) {
    throw new ProblemError(409, {
      type: PROBLEM_TYPES.ticketCancelled,
      title: "Ticket cancelled",
      detail: "This ticket was cancelled and is not valid for entry.",
      extensions: { ticketId: row.ticket_id, cancelledAt: row.cancelled_at },
    });
  }
  if (row.admission_id === null && row.ticket_date === context.today && row.entry_time !== null) {
    throw new ProblemError(422, {
      type: PROBLEM_TYPES.tooEarly,
      title: "Too early",
      detail: `This ticket's entry time is ${row.entry_time}; it is admitted from ${context.earlyMinutes} minutes before.`,
      extensions: { ticketId: row.ticket_id, entryTime: row.entry_time },
    });
  }
  if (row.admission_id === null) {
    throw new ProblemError(422, {
      type: PROBLEM_TYPES.notValidToday,
      title: "Not valid today",
      detail: `This ticket is for ${row.ticket_date}, not today (${context.today}).`,
      extensions: { ticketId: row.ticket_id, ticketDate: row.ticket_date },
    });
  }
  return {
    admissionId,
    ...ticketFacts(row),
    admittedAt: row.admitted_at!,
    gate: row.gate!,
  };
}
