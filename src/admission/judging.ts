// One judging of a scanned code for both gates (docs/admission.md): online
// (`POST /admissions`, judged now) and offline (`POST /admissions/offline`,
// judged at each scan's corrected time). The rules themselves are one SQL
// expression (tickets' `admissionJudgement`); this module gives it the scan's
// moment and reads the code.
import sql from "sql-template-tag";
import { minutesOf, timeOf } from "../hours/calendar";
import { PROBLEM_TYPES, ProblemError } from "../http/problem";
import { type IsoDate, museumNowIn } from "../platform/dates";
import type { CodeKeySet, SigningKeys } from "../configuration";
import { looksLikeTicketCode, verifyTicketCode, verifyTicketToken } from "../ticket-image";
import type { ScanMoment } from "../tickets/statements/admission";

/** A scan's moment as values (see tickets' `ScanMoment`). */
export type ScanMomentValues = { at: string; today: IsoDate; time: string; latestEntryTime: string };

/**
 * The moment of a scan at `at` in the museum's `timeZone`: its date, its time,
 * and the latest entry time admitted then (`earlyMinutes` ahead, within the day).
 */
export function scanMomentAt(at: Date, timeZone: string, earlyMinutes: number): ScanMomentValues {
  const { today, time } = museumNowIn(timeZone, at);
  const latestEntryTime = timeOf(Math.min(minutesOf(time) + earlyMinutes, 24 * 60 - 1));
  return { at: at.toISOString(), today, time, latestEntryTime };
}

/** A moment's values bound into SQL. */
export function boundMoment(moment: ScanMomentValues): ScanMoment {
  return {
    at: sql`${moment.at}`,
    today: sql`${moment.today}`,
    time: sql`${moment.time}`,
    latestEntryTime: sql`${moment.latestEntryTime}`,
  };
}

/** The keys a gate checks codes with: the Ed25519 keys of today's codes, the HMAC keys of codes printed before them. */
export type GateKeys = { codeKeys: CodeKeySet; keys: SigningKeys };

/** What judging a scan needs besides the scan: the keys, the museum's rules and clock, and the gate. */
export type GateContext = GateKeys & {
  /** The museum's IANA time zone (MUSEUM_TIMEZONE). */
  timeZone: string;
  /** How long before its entry time a timed ticket is admitted (ADMISSION_EARLY_MINUTES). */
  earlyMinutes: number;
  /** The admitting or uploading account's name: the gate of what it admits, and whose scanIds these are. */
  gate: string;
  now: Date;
};

/**
 * A genuine scanned code: the ticket it names, and whether it is of the
 * earlier kind (HMAC, `MT1.…`), which admits only a ticket sold with one
 * (tickets' `admissionJudgement`).
 */
type ScannedCode = { ticketId: string; legacy: boolean };

/**
 * What a scanned code names when it is genuine (its signature verifies),
 * else null: an Ed25519 code, or an HMAC one printed before those. The one
 * place a gate reads a code, whatever its format.
 */
export async function scannedCodeOf(code: string, keys: GateKeys): Promise<ScannedCode | null> {
  if (looksLikeTicketCode(code)) {
    const claims = await verifyTicketCode(code, keys.codeKeys);
    return claims && { ticketId: claims.tid, legacy: false };
  }
  const token = await verifyTicketToken(code, keys.keys);
  return token && { ticketId: token.ticketId, legacy: true };
}

/** One answer for every code that is not genuine, so a forger learns nothing about which check failed. */
export function invalidTicketCode(): ProblemError {
  return new ProblemError(422, {
    type: PROBLEM_TYPES.invalidTicketCode,
    title: "Invalid ticket code",
    detail: "This code is not a genuine ticket of this museum.",
  });
}
