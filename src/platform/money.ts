// Amounts of money: kept and summed in whole cents, shown as numbers with at
// most two decimals in the museum's currency (docs/orders.md, "Money").

/** An amount (at most two decimals) in cents. */
export function toCents(amount: number): number {
  return Math.round(amount * 100);
}

/** Cents as the API shows the amount: 2550 → 25.5. */
export function amountOf(cents: number): number {
  return cents / 100;
}

/** The sum of amounts given in cents, as the API shows it. */
export function totalOf(cents: readonly number[]): number {
  return amountOf(cents.reduce((sum, each) => sum + each, 0));
}
