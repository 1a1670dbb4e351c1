/**
 * The metric an alarm watches when the service's configuration is wrong: its secret does not
 * validate, does not exist, or may not be read (`Cause` `secret`), or the platform refuses the
 * credentials it holds (`credentials`). `ConfigurationErrors`, dimension `Cause`. It is raised
 * where the failure is met, as an EMF document that the log line naming the cause carries
 * (log.ts): outside any request for the secret (a container's secret store, lib/runtime.ts), in
 * the call that met the refusal for the credentials (lib/upstream/gateway/credential-refresh.ts).
 * The stack's ConfigurationErrorsAlarm (sls/plugins/alarms.ts) watches both causes.
 */
import { METRIC_NAMESPACE, type MetricDocument } from './metrics.ts';

const CONFIGURATION_ERRORS_METRIC = 'ConfigurationErrors';

/**
 * What was wrong (the metric's `Cause`): the secret (invalid, missing, unreadable), the
 * credentials it holds (the platform refused them), or the environment.
 */
export const CONFIGURATION_CAUSES = ['secret', 'credentials', 'environment'] as const;
export type ConfigurationCause = (typeof CONFIGURATION_CAUSES)[number];

export function configurationErrorMetric(
  cause: ConfigurationCause,
  now: number = Date.now(),
): MetricDocument {
  return {
    _aws: {
      Timestamp: now,
      CloudWatchMetrics: [
        {
          Namespace: METRIC_NAMESPACE,
          Dimensions: [['Cause']],
          Metrics: [{ Name: CONFIGURATION_ERRORS_METRIC, Unit: 'Count' }],
        },
      ],
    },
    Cause: cause,
    [CONFIGURATION_ERRORS_METRIC]: 1,
  };
}
