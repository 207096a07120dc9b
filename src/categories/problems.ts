import { PROBLEM_TYPES, ProblemError } from "../http/problem";

/** 409: the change would leave the museum without a default a 1.1.1 purchase can always buy. */
export function defaultCategoryConflict(detail: string): ProblemError {
  return new ProblemError(409, { type: PROBLEM_TYPES.defaultCategory, title: "Default category", detail });
}

/** 404 for a category that does not exist. */
export function categoryNotFound(categoryId: string): ProblemError {
  return new ProblemError(404, { detail: `No ticket category with id ${categoryId}.` });
}
