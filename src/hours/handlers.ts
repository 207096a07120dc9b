import type { AppRouteHandler } from "../http/types";
import { addDays } from "../platform/dates";
import { validationProblem } from "../http/errors";
import { pageOffset, paginationLink } from "../http/pagination";
import { ProblemError } from "../http/problem";
import { type DayPlan, PUBLISHED_DAYS_AHEAD, type WeeklySchedule } from "./calendar";
import type { HoursTickets } from "./followers";
import * as service from "./service";
import type * as routes from "./routes";
import { WEEKDAYS, type WeeklyScheduleBody } from "./schemas";

function toBody(schedule: WeeklySchedule): WeeklyScheduleBody {
  return Object.fromEntries(WEEKDAYS.map((day, index) => [day, schedule[index] ?? null])) as WeeklyScheduleBody;
}

export const getMuseumHours: AppRouteHandler<typeof routes.getMuseumHours> = async (c) => {
  const query = c.req.valid("query");
  const today = c.var.config.museumNow().today;
  const startDate = query.startDate ?? today;
  // At most a year of days is looked at: from startDate, up to the published horizon.
  const lastPublished = addDays(today, PUBLISHED_DAYS_AHEAD);
  const yearFromStart = addDays(startDate, PUBLISHED_DAYS_AHEAD);
  const endDate = yearFromStart < lastPublished ? yearFromStart : lastPublished;
  const page = { page: query.page, limit: query.limit };
  const days = await service.readOpenDays(c.var.db, { from: startDate, to: endDate }, { skip: pageOffset(page), take: page.limit + 1, slots: false });
  const url = new URL(c.req.url);
  url.searchParams.set("startDate", startDate);
  const link = paginationLink(url.href, page, days.length > page.limit);
  if (link) c.header("Link", link);
  return c.json(days.slice(0, page.limit).map(({ date, plan }) => ({ date, timeOpen: plan.timeOpen, timeClose: plan.timeClose })), 200);
};

export const getWeeklySchedule: AppRouteHandler<typeof routes.getWeeklySchedule> = async (c) =>
  c.json(toBody(await service.readWeeklySchedule(c.var.db)), 200);

export const replaceWeeklySchedule =
  (tickets: HoursTickets): AppRouteHandler<typeof routes.replaceWeeklySchedule> =>
  async (c) => {
    const body = c.req.valid("json");
    const { cancelTickets } = c.req.valid("query");
    const schedule: WeeklySchedule = {};
    WEEKDAYS.forEach((day, index) => {
      const hours = body[day];
      if (hours) schedule[index] = hours;
    });
    await service.writeWeeklySchedule(c.var.db, schedule, { today: c.var.config.museumNow().today, cancelTickets }, tickets);
    return c.json(toBody(schedule), 200);
  };

export const listHoursExceptions: AppRouteHandler<typeof routes.listHoursExceptions> = async (c) => {
  const query = c.req.valid("query");
  const startDate = query.startDate ?? c.var.config.museumNow().today;
  const endDate = query.endDate ?? addDays(startDate, PUBLISHED_DAYS_AHEAD);
  if (endDate < startDate) {
    throw validationProblem([{ path: "query.endDate", message: `Must not be before startDate (${startDate}).` }]);
  }
  const exceptions = await service.readHoursExceptions(c.var.db, startDate, endDate);
  return c.json(
    exceptions.map((e) => ({
      date: e.date,
      closed: e.hours === null,
      ...e.hours,
      ...(e.reason === null ? {} : { reason: e.reason }),
    })),
    200,
  );
};

export const putHoursException =
  (tickets: HoursTickets): AppRouteHandler<typeof routes.putHoursException> =>
  async (c) => {
    const { date } = c.req.valid("param");
    const body = c.req.valid("json");
    const { cancelTickets } = c.req.valid("query");
    const { closed, reason, ...plan } = body;
    const change = { today: c.var.config.museumNow().today, cancelTickets };
    const { replaced } = await service.setHoursException(c.var.db, date, closed ? null : (plan as DayPlan), reason ?? null, change, tickets);
    return c.json({ date, ...body }, replaced ? 200 : 201);
  };

export const deleteHoursException =
  (tickets: HoursTickets): AppRouteHandler<typeof routes.deleteHoursException> =>
  async (c) => {
    const { date } = c.req.valid("param");
    if (!(await service.clearHoursException(c.var.db, date, c.var.config.museumNow().today, tickets))) {
      throw new ProblemError(404, { detail: `No hours exception on ${date}.` });
    }
    return c.body(null, 204);
  };
