'use strict';
// The IAM that depends on deploy-time settings, as variable resolvers for serverless.yml:
// `${file(./scripts/sls/iam.cjs):secretResources}`. Decided when the command runs, so that the
// template holds concrete values (no condition that cfn-lint cannot follow).
const { setting, ARN } = require('./deploy-env.cjs');

/** Secrets Manager appends `-` and six characters to a secret's name to make its ARN. */
const SECRET_SUFFIX = /-[A-Za-z0-9]{6}$/;

/**
 * The secret's IAM resource(s). A name gets Secrets Manager's 6-character suffix ('-??????', not
 * '-*', which would also match "<name>-other"); a full ARN is used as given; a partial ARN (no
 * suffix) gets the suffix pattern.
 */
const secretResources = async ({ resolveVariable }) => {
  const secretId = setting('SECRET_ID') || (await resolveVariable('self:custom.secretName'));
  if (ARN.test(secretId)) {
    const name = secretId.slice(secretId.indexOf(':secret:') + ':secret:'.length);
    return [SECRET_SUFFIX.test(name) ? secretId : `${secretId}-??????`];
  }
  return [
    {
      'Fn::Sub': `arn:\${AWS::Partition}:secretsmanager:\${AWS::Region}:\${AWS::AccountId}:secret:${secretId}-??????`,
    },
  ];
};

/**
 * Resources that exist only with their setting: kms:Decrypt on the secret's customer-managed
 * key (SECRET_KMS_KEY_ARN), and events:PutEvents on the watcher's bus (EVENT_BUS_NAME).
 */
const optionalResources = async () => {
  const resources = {};
  const key = setting('SECRET_KMS_KEY_ARN');
  if (key) {
    resources.DecryptPlatformSecretPolicy = {
      Type: 'AWS::IAM::Policy',
      Properties: {
        PolicyName: 'decrypt-platform-secret',
        Roles: [
          { Ref: 'SecretReaderRole' },
          { Ref: 'WebhookReceiverRole' },
          { Ref: 'InvocationConsumerRole' },
          { Ref: 'WatcherRole' },
        ],
        PolicyDocument: {
          Version: '2012-10-17',
          Statement: [
            {
              Effect: 'Allow',
              Action: 'kms:Decrypt',
              Resource: key,
              // Only as Secrets Manager decrypts the secret, never directly.
              Condition: {
                StringEquals: {
                  // biome-ignore lint/suspicious/noTemplateCurlyInString: CloudFormation Fn::Sub syntax
                  'kms:ViaService': { 'Fn::Sub': 'secretsmanager.${AWS::Region}.amazonaws.com' },
                },
              },
            },
          ],
        },
      },
    };
  }
  const bus = setting('EVENT_BUS_NAME');
  if (bus) {
    resources.PublishScanJobChangesPolicy = {
      Type: 'AWS::IAM::Policy',
      Properties: {
        PolicyName: 'publish-scan-job-changes',
        Roles: [{ Ref: 'WatcherRole' }],
        PolicyDocument: {
          Version: '2012-10-17',
          Statement: [
            {
              Effect: 'Allow',
              Action: 'events:PutEvents',
              Resource: ARN.test(bus)
                ? bus
                : {
                    'Fn::Sub': `arn:\${AWS::Partition}:events:\${AWS::Region}:\${AWS::AccountId}:event-bus/${bus}`,
                  },
            },
          ],
        },
      },
    };
  }
  return { Resources: resources };
};

module.exports = { secretResources, optionalResources };
