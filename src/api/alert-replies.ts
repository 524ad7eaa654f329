/**
 * The alerting routes' replies in the wire's snake_case (src/schema/replies.ts): alerting keeps its
 * own camelCase objects inside the process, and these functions turn them into what the API
 * answers. Silences keep Alertmanager's field names (docs/api.md "Naming").
 */
import type { ActionRecord, AlertView, IncidentHistoryReply, IncidentView, RuleGroupView } from '../alerting/index.ts';
import { snakeKeys } from '../schema/index.ts';
import type { ActionReply, AlertReply, IncidentHistoryWireReply, IncidentReply, RulesReply } from '../schema/index.ts';

export function alertReply(a: AlertView): AlertReply {
  return snakeKeys(a);
}

export function incidentReply(i: IncidentView): IncidentReply {
  return snakeKeys(i);
}

export function historyReply(h: IncidentHistoryReply): IncidentHistoryWireReply {
  return {
    incidents: h.incidents.map((i) => ({ ...snakeKeys(i), alerts: i.alerts.map(snakeKeys), actions: i.actions.map(snakeKeys) })),
    silences: h.silences,
  };
}

export function actionReply(a: ActionRecord): ActionReply {
  return { ...snakeKeys(a), answer: a.answer ? snakeKeys(a.answer) : null };
}

export function rulesReply(groups: readonly RuleGroupView[]): RulesReply {
  return { groups: groups.map((g) => ({ ...snakeKeys(g), rules: g.rules.map(snakeKeys) })) };
}
