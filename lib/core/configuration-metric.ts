/**
 * The metric an alarm watches when the service's configuration is wrong (its secret does not
 * validate, does not exist, or may not be read): `ConfigurationErrors`, dimension `Cause`. It is
 * raised where the failure is met, outside any request (a container's secret store), as an EMF
 * document that the log line naming the cause carries (log.ts); the stack's
 * ConfigurationErrorsAlarm (scripts/sls/alarms.cjs) watches it.
 */
import { METRIC_NAMESPACE, type MetricDocument } from './metrics.js';

const CONFIGURATION_ERRORS_METRIC = 'ConfigurationErrors';

/** What was wrong: the secret (invalid, missing, unreadable), or the environment. */
export type ConfigurationCause = 'secret' | 'environment';

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
