/**
 * The function table: each Lambda function of the package, once. What calls it (its routes of
 * the registry, API Gateway's catch-all, the invocation queue or the schedule), its handler,
 * the parts of the secret it reads, what else its role may do, its timeout, memory and
 * concurrency. serverless.yml's functions (sls/resolvers/functions.ts), their roles
 * (sls/resolvers/iam.ts), the public routes' throttles, the preflight's concurrency sum, the
 * package check and the tests' tables are made from it.
 *
 * A function's name is written once: an HTTP function's is its routes' (`function` of their
 * registry entries, lib/http/routes/: the key of its one route), since its bundle needs it; a
 * function no route calls has it from the module its handler wires it with. The table holds
 * what only the deploy reads (its roles, its timeouts): no function's bundle carries it, since a
 * handler imports its routes' module, never this one. An entry's shape, and what follows from it,
 * is function-entry.ts's.
 */
import { captchaEntries } from '../lib/catalogue/captcha.ts';
import type { CatalogueEntry } from '../lib/catalogue/entry.ts';
import { languageEntries } from '../lib/catalogue/language.ts';
import { mapsEntries } from '../lib/catalogue/maps.ts';
import { utilityEntries } from '../lib/catalogue/utility.ts';
import { fallbackRoute } from '../lib/http/routes/fallback.ts';
import { functionRoutes } from '../lib/http/routes/functions.ts';
import { routes as registry } from '../lib/http/routes/index.ts';
import { jobRoutes } from '../lib/http/routes/jobs.ts';
import { serviceRoutes } from '../lib/http/routes/service.ts';
import { WATCHER_FUNCTION } from '../lib/watcher/watcher.ts';
import { CONSUMER_FUNCTION } from '../lib/webhooks/consumer.ts';
import {
  custom,
  type FunctionSpec,
  functionOf,
  type LambdaFunction,
  localOrDeployed,
  param,
  shell,
} from './function-entry.ts';

/** The registry's routes of a catalogue group (lib/catalogue/<group>.ts). */
const registryRoutesOf = (entries: readonly CatalogueEntry[]) =>
  entries.map((entry) => registry.find((route) => route.id === entry.id)!);

/** A caller's route that reaches the platform reads the callers and keeps their usage. */
const ADMITS = { may: ['keepUsage'] } as const;
/** The scan job routes sign their calls with the signing keys. */
const SCAN_JOBS = { reads: ['signing', 'callers'], ...ADMITS } as const;
const EXECUTION = { reads: ['execution', 'callers'], ...ADMITS } as const;
const CATALOGUE = { reads: ['catalogue', 'callers'], ...ADMITS } as const;
/**
 * A function that hands off (`handsOff`, lib/hand-off/) may hold its container for seconds while
 * it stores up to handOffMaxMB: capped, so that callers of large answers cannot take the
 * account's concurrency from every other function. A stage parameter names each cap.
 */
const handOffCap = (param: string) => ({ concurrency: { reserved: param } }) as const;
/**
 * The reference reads the callers only where the stage turns its public reference off (its
 * handler then checks them); both handlers are told which (PUBLIC_REFERENCE).
 */
const REFERENCE = {
  reads: ['callers'],
  environment: { PUBLIC_REFERENCE: param('publicReference') },
} as const;

/**
 * In the template's order: the dashboard lays its graphs out in it, and the hand-off bucket's
 * policy names the roles in it.
 */
const TABLE: readonly FunctionSpec[] = [
  // Reads no secret, calls nothing: no secrets extension to start at its cold start.
  { trigger: { routes: [serviceRoutes.health] }, handler: 'functions/health.ts' },
  { trigger: { routes: [jobRoutes.listJobs] }, handler: 'functions/jobs/list.ts', ...SCAN_JOBS },
  {
    trigger: { routes: [jobRoutes.searchJobs] },
    handler: 'functions/jobs/search.ts',
    ...SCAN_JOBS,
  },
  {
    trigger: { routes: [jobRoutes.cancelReservedJobs] },
    handler: 'functions/jobs/cancel-reserved.ts',
    ...SCAN_JOBS,
    // One call at a time per caller: a lease in the usage table, the one delete it takes.
    may: ['keepUsage', 'holdLeases'],
    // Many calls in one invocation (a search page walk, then cancels several at a time): 25 s,
    // under API Gateway's 30 s integration limit. It stops sending about a second before its
    // end and answers 200 with what remains.
    timeout: 25,
    // Each call may hold a container for 25 s: capped, so that bulk cancels cannot take the
    // account's concurrency from every other function.
    concurrency: { reserved: 'cancelReservedConcurrency' },
  },
  { trigger: { routes: [jobRoutes.cancelJob] }, handler: 'functions/jobs/cancel.ts', ...SCAN_JOBS },
  { trigger: { routes: [jobRoutes.stopJob] }, handler: 'functions/jobs/stop.ts', ...SCAN_JOBS },
  {
    trigger: { routes: [jobRoutes.getJobReport] },
    handler: 'functions/jobs/report.ts',
    ...SCAN_JOBS,
    ...handOffCap('getJobReportConcurrency'),
  },
  // A caller's plan and usage, read from the usage table (it admits nothing).
  {
    trigger: { routes: [serviceRoutes.usage] },
    handler: 'functions/usage.ts',
    reads: ['callers'],
    may: ['readUsage'],
  },
  // An unknown route or a wrong method answers 404 / 405 without reading the secret.
  { trigger: { catchAll: fallbackRoute }, handler: 'functions/fallback.ts' },
  // Executions call their URLs over HTTPS, unsigned.
  {
    trigger: { routes: [functionRoutes.invokeAction] },
    handler: 'functions/actions/invoke.ts',
    description: 'Runs an action through its execution URL (ANY method; web actions keep it)',
    ...EXECUTION,
    // An action may hold its container the function's 10 s: capped, so that callers of a slow
    // action cannot take the account's concurrency from every other function.
    concurrency: { reserved: 'invokeActionConcurrency' },
  },
  {
    trigger: { routes: [functionRoutes.fireTrigger] },
    handler: 'functions/triggers/fire.ts',
    description: 'Fires a trigger through its execution URL',
    ...EXECUTION,
    concurrency: { reserved: 'fireTriggerConcurrency' },
  },
  {
    trigger: { routes: [functionRoutes.receiveWebhook] },
    // Deployed, deliveries go to SQS; locally (no SQS), the consumer's code runs them in process.
    handler: {
      deployed: 'functions/webhooks/receive.ts',
      local: 'functions/webhooks/receive-local.ts',
    },
    description: 'Verifies a Standard Webhooks delivery and queues its action (202)',
    reads: ['webhooks'],
    may: ['sendInvocations'],
    // Anyone on the internet can post to it: capped, so that a flood of deliveries, signed or
    // not, cannot take the account's concurrency.
    concurrency: { reserved: 'receiveWebhookConcurrency' },
    throttle: 'webhook',
    environment: {
      // Deployed: the queue's URL (Ref of an AWS::SQS::Queue). Local runs: unset, so deliveries
      // run in process.
      INVOCATION_QUEUE_URL: localOrDeployed('invocationQueueUrl'),
      // Params too large for a queue message go to this bucket (deployed only).
      DELIVERY_BODY_BUCKET: localOrDeployed('deliveryBodyBucket'),
      // Locally only: the in-process hand-off claims deliveries in the consumer's ledger.
      DELIVERY_LEDGER_TABLE: localOrDeployed('receiverLedgerTable'),
    },
  },
  {
    name: CONSUMER_FUNCTION,
    trigger: { queue: 'InvocationQueue', batchSize: 5, reportsBatchItemFailures: true },
    handler: 'functions/queue/consume.ts',
    description: 'Runs queued invocations, reporting partial batch failures',
    reads: ['execution'],
    may: ['consumeInvocations', 'claimDeliveries', 'countAccountUsage'],
    // It waits for an action as long as the platform may take to answer a blocking call (60 s),
    // and the gateway's own time: the messages of a batch run side by side, and a message behind
    // another of its (ordered) group only starts when 65 s are left. InvocationQueue's
    // VisibilityTimeout is 6 x this timeout.
    timeout: 90,
    // Each run may wait 60 s for an action: at most this many at once, so that a flood of
    // deliveries to a slow action cannot take the account's concurrency; the others wait in
    // the queue.
    concurrency: { eventSourceMax: 'consumeInvocationsConcurrency' },
    environment: {
      DELIVERY_LEDGER_TABLE: localOrDeployed('deliveryLedgerTable'),
      INVOCATION_QUEUE_URL: localOrDeployed('invocationQueueUrl'),
      INVOCATION_DEAD_LETTER_QUEUE_URL: localOrDeployed('invocationDeadLetterQueueUrl'),
      DELIVERY_BODY_BUCKET: localOrDeployed('deliveryBodyBucket'),
      DELIVERY_MEMORY_DAYS: shell('DELIVERY_MEMORY_DAYS'),
      INVOCATION_MAX_ATTEMPTS: shell('INVOCATION_MAX_ATTEMPTS'),
      INVOCATION_RETRY_SECONDS: shell('INVOCATION_RETRY_SECONDS'),
      // Its last receive before SQS's own redrive is counted in a metric.
      INVOCATION_MAX_RECEIVES: custom('maxReceiveCount'),
    },
  },
  {
    name: WATCHER_FUNCTION,
    // The event carries nothing the watcher reads; a sample is events/schedule.json.
    trigger: { schedule: 'rate(5 minutes)', description: 'Scan job watcher run' },
    handler: 'functions/watcher/scan.ts',
    description: "Announces each change of a scan job's status",
    reads: ['signing'],
    may: ['keepWatcherState', 'publishScanJobChanges'],
    // The job list's pages 8 at a time, then one PutEvents call and a few DynamoDB writes per
    // 10 changes: about 2 s for 10,000 jobs at 50 ms a call. A pass that cannot finish keeps a
    // cursor and stops 5 s before this; the next pass goes on from it. No reserved concurrency:
    // overlapping runs are safe (conditional claims in DynamoDB).
    timeout: 60,
    environment: {
      // Deployed: the state table. Local (offline, invoke local): unset unless exported, so the
      // watcher keeps its view in WATCHER_STATE_FILE, the project's .local/watcher-state.json by
      // default, as an absolute path (invoke local runs the handler from its build folder).
      WATCHER_STATE_TABLE: localOrDeployed('watcherStateTable', "''"),
      WATCHER_STATE_FILE: localOrDeployed('watcherStateFile'),
      // Unset: each change is only logged.
      EVENT_BUS_NAME: shell('EVENT_BUS_NAME'),
    },
  },
  // One function per catalogue group (lib/catalogue/<group>.ts): a group is called together (a
  // CAPTCHA key, then its image, then the comparison; a map's tiles in bursts), so its routes
  // keep each other's containers warm, and each group module is all its function bundles.
  {
    trigger: { routes: registryRoutesOf(languageEntries) },
    handler: 'functions/catalogue/language.ts',
    ...CATALOGUE,
    ...handOffCap('catalogueLanguageConcurrency'),
  },
  {
    trigger: { routes: registryRoutesOf(mapsEntries) },
    handler: 'functions/catalogue/maps.ts',
    ...CATALOGUE,
    ...handOffCap('catalogueMapsConcurrency'),
  },
  {
    trigger: { routes: registryRoutesOf(captchaEntries) },
    handler: 'functions/catalogue/captcha.ts',
    ...CATALOGUE,
    ...handOffCap('catalogueCaptchaConcurrency'),
  },
  {
    trigger: { routes: registryRoutesOf(utilityEntries) },
    handler: 'functions/catalogue/utility.ts',
    ...CATALOGUE,
  },
  {
    trigger: { routes: [serviceRoutes.openapi] },
    handler: {
      publicReference: 'functions/openapi.ts',
      forCallers: 'functions/openapi-for-callers.ts',
    },
    ...REFERENCE,
  },
  {
    trigger: { routes: [serviceRoutes.docs, serviceRoutes.docsAsset] },
    handler: { publicReference: 'functions/docs.ts', forCallers: 'functions/docs-for-callers.ts' },
    description: 'The API reference in a browser (GET /docs)',
    ...REFERENCE,
  },
];

/** Every function of the package, by name, in the template's order. */
export const FUNCTIONS: Readonly<Record<string, LambdaFunction>> = Object.fromEntries(
  TABLE.map(functionOf).map((fn) => [fn.name, fn]),
);
