/** Runs one rule condition at one time; the result is the set of slices where it holds. */
import type { Condition, Severity } from '../rule-schema.ts';
import type { ConditionContext, Observation } from './context.ts';
import { evalGoldenFailure } from './golden-failure.ts';
import { evalNoData } from './no-data.ts';
import { evalQualityChange } from './quality-change.ts';
import { evalResource } from './resource.ts';
import { evalSloBurnRate } from './slo-burn-rate.ts';
import { evalThreshold } from './threshold.ts';
import { evalRateShift } from './rate-shift.ts';
import { evalLatencyShift } from './latency-shift.ts';
import { evalDistributionShift } from './distribution-shift.ts';

export type { ConditionContext, Coverage, Observation } from './context.ts';
export { PAGE_WINDOWS, TICKET_WINDOWS } from './slo-burn-rate.ts';

export function evaluateCondition(c: Condition, severity: Severity, ctx: ConditionContext): Promise<Observation[]> {
  switch (c.kind) {
    case 'threshold':
      return evalThreshold(c, ctx);
    case 'slo_burn_rate':
      return evalSloBurnRate(c, severity, ctx);
    case 'quality_change':
      return evalQualityChange(c, ctx);
    case 'resource':
      return evalResource(c, ctx);
    case 'golden_failure':
      return evalGoldenFailure(c, ctx);
    case 'no_data':
      return evalNoData(c, ctx);
    case 'rate_shift':
      return evalRateShift(c, ctx);
    case 'latency_shift':
      return evalLatencyShift(c, ctx);
    case 'distribution_shift':
      return evalDistributionShift(c, ctx);
  }
}
