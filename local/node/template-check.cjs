'use strict';
// Checks a SAM template (template.yaml) against the CloudFormation resource specification in
// @aws-cdk/cfnspec (specification(): CloudFormation resource specification 117.0.0 with the
// AWS::Serverless::* types of the SAM specification merged in), before `sam deploy` would find out.
//
//   node template-check.cjs ../../template.yaml
//
// prints one line per problem, `<file>:<line>: <path>: <reason> [<rule>]`, and exits 1 when there is
// one (0 with `OK <file>` when there is none, 2 when the file cannot be read or is not YAML).
// `checkTemplate(template, {baseDir})` takes the parsed template (plain objects, long-form
// intrinsics) and returns every problem as {path, rule, reason}; `path` names the place in the
// template, e.g. `Resources.PlanApiFunction.Properties.Events.OpenApi.Properties.Path` or
// `Resources.X.Properties.Name.Fn::Sub` (`[3]` a list index, `["a.b c"]` a key that is not a plain name).
//
// Rules (`rule` of a problem):
//   type         every resource Type is in the spec (CloudFormation or SAM; Custom::* is a custom resource).
//   property     every property (and resource attribute: DependsOn, DeletionPolicy, ...) is known to its type.
//   shape        every value has its spec shape: primitive String / Integer / Long / Double / Boolean / Json /
//                Timestamp (with CloudFormation's conversions: a number is a String, "5" an Integer, "true" a
//                Boolean), List / Map with ItemType / PrimitiveItemType, nested property types recursively, and
//                the SAM unions (Policies: a name, a policy document, or a list of names, documents and SAM
//                policy templates). An intrinsic function stands for any value; the branches of Fn::If are checked.
//   required     every Required property is present; for SAM functions after Globals are merged, as SAM merges
//                them (maps merged, lists concatenated, scalars overridden), plus what SAM documents: CodeUri,
//                InlineCode or ImageUri, and Handler and Runtime unless PackageType is Image; a state machine
//                needs Definition or DefinitionUri.
//   event        SAM event sources: a known Type, checked against the property type the spec gives it
//                (HttpApi -> HttpApiEvent, Schedule -> ScheduleEvent, ...; ScheduleV2 as below); an HttpApi
//                event's ApiId is a Ref to an AWS::Serverless::HttpApi of the template, its Auth.Authorizer is
//                NONE or an authorizer of that API, and no two events declare one route (method and path).
//   globals      a Globals section and property SAM supports (SAM's own list, samtranslator/plugins/globals).
//   intrinsic    an intrinsic function is one CloudFormation has, with arguments of its shape.
//   ref          every Ref names a parameter, a resource, a resource SAM generates, or a pseudo parameter;
//                DependsOn names resources; Fn::FindInMap a mapping. The generated resources known by logical id
//                (samtranslator): <Function>Role and <StateMachine>Role (when Role is not given),
//                <Function>Alias<AutoPublishAlias>, an event's <Resource><Event> (ScheduleV2: the Scheduler schedule,
//                and <Resource><Event>Role without RoleArn; Schedule, CloudWatchEvent, EventBridgeRule: the rule),
//                <Function><Event>Permission (HttpApi, Api), ServerlessHttpApi (an HttpApi event without ApiId);
//                and SAM's `Ref: X.Prop` (Function .Alias / .Version with AutoPublishAlias, .DestinationTopic /
//                .DestinationQueue with EventInvokeConfig; Api and HttpApi .Stage, .DomainName, ...). Others
//                (a version's hashed id, an API's generated stage, a DLQ queue) are not known: a Ref to one is
//                reported.
//   getatt       every Fn::GetAtt names a resource and an attribute its type has in the spec (a SAM resource has
//                the attributes of the resource SAM makes of it: Function -> AWS::Lambda::Function, StateMachine
//                -> AWS::StepFunctions::StateMachine (Name, Arn), HttpApi -> AWS::ApiGatewayV2::Api
//                (ApiEndpoint, ApiId), ...).
//   sub          every ${Var} of an Fn::Sub resolves: a parameter, a resource, a pseudo parameter,
//                Resource.Attr (as getatt), or a key of the Sub's own map; ${!Literal} is literal text.
//   cycle        no circular dependency among resources through Ref, Fn::GetAtt, Fn::Sub and DependsOn; the
//                resources SAM generates are nodes of their own (a function's role holds its Policies; an HttpApi
//                holds the ARN of every function routed to it), so a cycle SAM would create is found too.
//   substitutions  for every AWS::Serverless::StateMachine with DefinitionSubstitutions: every key is used as
//                ${Key} in its definition (the DefinitionUri file, relative to baseDir, or the inline
//                Definition), and every ${Key} there has a key.
//   condition    every Condition attribute and Fn::If names a condition of Conditions; a condition is made of
//                condition functions and Refs parameters only (CloudFormation's rule).
//   output       every output has a Value and only the keys CloudFormation knows; its Refs and GetAtts resolve
//                (as ref / getatt / sub).
//   template     the template's own structure: known top-level sections, Resources present, alphanumeric logical
//                ids, parameters with a known Type and known keys.
//
// What the package does not describe, and how it is handled (each named, none silently skipped):
//   - SAM properties newer than the package's SAM spec (it has no LoggingConfig, SnapStart, EphemeralStorage,
//     RuntimeManagementConfig, PropagateTags, ... of AWS::Serverless::Function, and names two properties wrongly:
//     HttpApi AccessLogSetting and StateMachine PermissionsBoundaries, which SAM calls AccessLogSettings and
//     PermissionsBoundary): SAM_PROPERTIES below lists them from SAM's source. Where SAM passes one through to a
//     CloudFormation type the spec has (EphemeralStorage, SnapStart, RuntimeManagementConfig), its value is checked
//     against that type; LoggingConfig (Lambda's, added to CloudFormation after spec 117.0.0) against the four
//     String properties CloudFormation documents (LOGGING_CONFIG); the rest (FunctionUrlConfig,
//     DeploymentPreference of a state machine, CapacityProviderConfig, DurableConfig, FunctionScalingConfig,
//     TenancyConfig, VersionDeletionPolicy) are known by name only: their values are not checked.
//   - The ScheduleV2 event source is not in the package: it is checked against the spec of what SAM makes of it
//     (AWS::Scheduler::Schedule for ScheduleExpression, Name, State, ...; its Target for Input, RoleArn,
//     RetryPolicy), with SAM's own OmitName (Boolean) and PermissionsBoundary (String); its DeadLetterConfig (SAM's
//     shape, not Scheduler's) only as an object; FlexibleTimeWindow is optional (SAM defaults it to Mode OFF).
//   - Event sources SAM has and the package does not (Cognito, DocumentDB, MQ, MSK, SelfManagedKafka): known by
//     Type; their properties are not checked.
//   - SAM policy templates: the package has 34 for functions and 2 for state machines; SAM has 81, for both
//     (SAM_POLICY_TEMPLATES adds the other 47 with their parameters from SAM's policy_templates.json). A state
//     machine's inline policy document needs Version, a function's does not: the package's two
//     IAMPolicyDocument types say so, and this check follows them.
//   - HttpApi Auth.Authorizers, and a policy document's Statement, are Json in the package: beyond the
//     authorizer names (see event), their contents (JwtConfiguration, IAM statements) are not checked.
//   - Allowed values (enums such as Runtime java21 or Tracing Active), number ranges and string patterns: the
//     spec has none. Attributes of a complex type (dropped by specification()) are not known to getatt.
//   - Globals are merged into each resource (for the required rule) for functions only: the other types'
//     required properties (Api StageName, Application Location) are ones SAM's Globals cannot set. Globals
//     values of every type are checked against the type's spec in place.
//   - YAML short-form tags (!Ref, !GetAtt, ...): the CLI reports them as problems (the local stack reads this
//     file with a plain YAML parser); checkTemplate itself sees only the parsed objects.
const fs = require('node:fs');
const path = require('node:path');

let cachedSpec = null;
/** The package's specification (about 10 MB of JSON), read once per process. */
function spec() {
  if (!cachedSpec) cachedSpec = require('@aws-cdk/cfnspec').specification();
  return cachedSpec;
}

const PSEUDO_PARAMETERS = new Set(['AWS::AccountId', 'AWS::NotificationARNs', 'AWS::NoValue', 'AWS::Partition',
  'AWS::Region', 'AWS::StackId', 'AWS::StackName', 'AWS::URLSuffix']);

const TOP_LEVEL = new Set(['AWSTemplateFormatVersion', 'Description', 'Metadata', 'Parameters', 'Rules', 'Mappings',
  'Conditions', 'Transform', 'Resources', 'Outputs', 'Globals']);
const RESOURCE_KEYS = new Set(['Type', 'Properties', 'DependsOn', 'Condition', 'DeletionPolicy', 'UpdateReplacePolicy',
  'Metadata', 'CreationPolicy', 'UpdatePolicy']);
const DELETION_POLICIES = new Set(['Delete', 'Retain', 'Snapshot', 'RetainExceptOnCreate']);
const OUTPUT_KEYS = new Set(['Description', 'Value', 'Export', 'Condition']);
const PARAMETER_KEYS = new Set(['Type', 'Default', 'AllowedPattern', 'AllowedValues', 'ConstraintDescription',
  'Description', 'MaxLength', 'MaxValue', 'MinLength', 'MinValue', 'NoEcho']);
const PARAMETER_TYPES = /^(String|Number|List<Number>|CommaDelimitedList|AWS::[A-Za-z0-9:]+|List<AWS::[A-Za-z0-9:]+>|AWS::SSM::Parameter::Value<.+>)$/;

/** Intrinsic functions CloudFormation has; the value is how many arguments a list form takes ([min, max]). */
const INTRINSICS = {
  'Ref': null, 'Fn::Base64': null, 'Fn::Cidr': [3, 3], 'Fn::FindInMap': [3, 4], 'Fn::GetAtt': [2, 2],
  'Fn::GetAZs': null, 'Fn::ImportValue': null, 'Fn::Join': [2, 2], 'Fn::Select': [2, 2], 'Fn::Split': [2, 2],
  'Fn::Sub': [1, 2], 'Fn::Transform': null, 'Fn::If': [3, 3], 'Fn::Equals': [2, 2], 'Fn::Not': [1, 1],
  'Fn::And': [2, 10], 'Fn::Or': [2, 10], 'Fn::Length': null, 'Fn::ToJsonString': null,
};
const CONDITION_FUNCTIONS = new Set(['Fn::Equals', 'Fn::Not', 'Fn::And', 'Fn::Or', 'Condition']);

/** What CloudFormation resource SAM makes of each SAM type: its attributes are the SAM type's (getatt). */
const SAM_GENERATES = {
  'AWS::Serverless::Function': 'AWS::Lambda::Function',
  'AWS::Serverless::StateMachine': 'AWS::StepFunctions::StateMachine',
  'AWS::Serverless::HttpApi': 'AWS::ApiGatewayV2::Api',
  'AWS::Serverless::Api': 'AWS::ApiGateway::RestApi',
  'AWS::Serverless::SimpleTable': 'AWS::DynamoDB::Table',
  'AWS::Serverless::LayerVersion': 'AWS::Lambda::LayerVersion',
  'AWS::Serverless::Application': 'AWS::CloudFormation::Stack',
};

/** `Ref: <Resource>.<Property>` SAM resolves (samtranslator referable_properties). */
const SAM_REFERABLE = {
  'AWS::Serverless::Function': ['Alias', 'Version', 'DestinationTopic', 'DestinationQueue'],
  'AWS::Serverless::StateMachine': [],
  'AWS::Serverless::Api': ['Stage', 'Deployment', 'DomainName', 'DomainNameV2', 'UsagePlan', 'UsagePlanKey', 'ApiKey'],
  'AWS::Serverless::HttpApi': ['Stage', 'DomainName'],
};

/**
 * Lambda's LoggingConfig as CloudFormation documents it (AWS::Lambda::Function LoggingConfig, added after the
 * package's spec 117.0.0): the shape SAM's LoggingConfig passes through.
 */
const LOGGING_CONFIG = {
  Properties: {
    LogFormat: { PrimitiveType: 'String' }, ApplicationLogLevel: { PrimitiveType: 'String' },
    SystemLogLevel: { PrimitiveType: 'String' }, LogGroup: { PrimitiveType: 'String' },
  },
};

/**
 * SAM properties the package's SAM spec lacks (samtranslator/internal/schema_source, 2026): each with the shape
 * its value is checked against: a spec property (`from`: the CloudFormation property SAM passes it through to),
 * a primitive, a struct written here, or `any` (known by name, value not checked). `drop` names a property the
 * package has under a name SAM does not accept.
 */
const SAM_PROPERTIES = {
  'AWS::Serverless::Function': {
    LoggingConfig: { struct: LOGGING_CONFIG },
    EphemeralStorage: { from: ['AWS::Lambda::Function', 'EphemeralStorage'] },
    SnapStart: { from: ['AWS::Lambda::Function', 'SnapStart'] },
    RuntimeManagementConfig: { from: ['AWS::Lambda::Function', 'RuntimeManagementConfig'] },
    AutoPublishAliasAllProperties: { PrimitiveType: 'Boolean' }, PropagateTags: { PrimitiveType: 'Boolean' },
    PublishToLatestPublished: { PrimitiveType: 'Boolean' }, RolePath: { PrimitiveType: 'String' },
    RecursiveLoop: { PrimitiveType: 'String' }, SourceKMSKeyArn: { PrimitiveType: 'String' },
    FunctionUrlConfig: { any: true }, CapacityProviderConfig: { any: true }, DurableConfig: { any: true },
    FunctionScalingConfig: { any: true }, TenancyConfig: { any: true }, VersionDeletionPolicy: { any: true },
  },
  'AWS::Serverless::StateMachine': {
    PermissionsBoundary: { PrimitiveType: 'String' }, AutoPublishAlias: { PrimitiveType: 'String' },
    PropagateTags: { PrimitiveType: 'Boolean' }, RolePath: { PrimitiveType: 'String' },
    UseAliasAsEventTarget: { PrimitiveType: 'Boolean' }, DeploymentPreference: { any: true },
    drop: ['PermissionsBoundaries'],
  },
  'AWS::Serverless::HttpApi': {
    AccessLogSettings: { Type: 'AccessLogSetting' }, Name: { PrimitiveType: 'String' },
    PropagateTags: { PrimitiveType: 'Boolean' },
    drop: ['AccessLogSetting'],
  },
};

/**
 * SAM policy templates the package lacks (samtranslator/policy_templates_data/policy_templates.json, 2026), each with
 * its parameters: every parameter is a required String, as SAM requires them all.
 */
const SAM_POLICY_TEMPLATES = {
  AWSSecretsManagerRotationPolicy: ['FunctionName'], AcmGetCertificatePolicy: ['CertificateArn'],
  AthenaQueryPolicy: ['WorkGroupName'], CloudWatchDashboardPolicy: [], CloudWatchDescribeAlarmHistoryPolicy: [],
  CodeCommitCrudPolicy: ['RepositoryName'], CodeCommitReadPolicy: ['RepositoryName'],
  CodePipelineLambdaExecutionPolicy: [], CodePipelineReadOnlyPolicy: ['PipelineName'],
  ComprehendBasicAccessPolicy: [], CostExplorerReadOnlyPolicy: [], DynamoDBBackupFullAccessPolicy: ['TableName'],
  DynamoDBReconfigurePolicy: ['TableName'], DynamoDBRestoreFromBackupPolicy: ['TableName'],
  EC2CopyImagePolicy: ['ImageId'], EFSWriteAccessPolicy: ['AccessPoint', 'FileSystem'], EKSDescribePolicy: [],
  EcsRunTaskPolicy: ['TaskDefinition'], ElasticMapReduceAddJobFlowStepsPolicy: ['ClusterId'],
  ElasticMapReduceCancelStepsPolicy: ['ClusterId'], ElasticMapReduceModifyInstanceFleetPolicy: ['ClusterId'],
  ElasticMapReduceModifyInstanceGroupsPolicy: ['ClusterId'],
  ElasticMapReduceSetTerminationProtectionPolicy: ['ClusterId'],
  ElasticMapReduceTerminateJobFlowsPolicy: ['ClusterId'], EventBridgePutEventsPolicy: ['EventBusName'],
  FirehoseCrudPolicy: ['DeliveryStreamName'], FirehoseWritePolicy: ['DeliveryStreamName'],
  KMSEncryptPolicy: ['KeyId'], KMSEncryptPolicy_v2: ['KeyId'], MobileAnalyticsWriteOnlyAccessPolicy: [],
  OrganizationsListAccountsPolicy: [], PinpointEndpointAccessPolicy: ['PinpointApplicationId'],
  PollyFullAccessPolicy: ['LexiconName'], RekognitionFacesManagementPolicy: ['CollectionId'],
  RekognitionFacesPolicy: [], Route53ChangeResourceRecordSetsPolicy: ['HostedZoneId'],
  S3FullAccessPolicy: ['BucketName'], SESBulkTemplatedCrudPolicy_v2: ['IdentityName', 'TemplateName'],
  SSMParameterWithSlashPrefixReadPolicy: ['ParameterName'],
  SageMakerCreateEndpointConfigPolicy: ['EndpointConfigName'], SageMakerCreateEndpointPolicy: ['EndpointName'],
  ServerlessRepoReadWriteAccessPolicy: [], StepFunctionsCallbackPolicy: ['StateMachineName'],
  StepFunctionsExecutionPolicy_v2: ['StateMachineName'], TextractDetectAnalyzePolicy: [],
  TextractGetResultPolicy: [], TextractPolicy: [],
};
/** SAM's Globals: the sections and the properties each may set (samtranslator/plugins/globals/globals.py). */
const GLOBALS = {
  Function: ['Handler', 'Runtime', 'CodeUri', 'DeadLetterQueue', 'Description', 'MemorySize', 'Timeout', 'VpcConfig',
    'Environment', 'Tags', 'PropagateTags', 'Tracing', 'KmsKeyArn', 'AutoPublishAlias',
    'AutoPublishAliasAllProperties', 'Layers', 'DeploymentPreference', 'RolePath', 'PermissionsBoundary',
    'ReservedConcurrentExecutions', 'ProvisionedConcurrencyConfig', 'AssumeRolePolicyDocument', 'EventInvokeConfig',
    'FileSystemConfigs', 'CodeSigningConfigArn', 'Architectures', 'SnapStart', 'EphemeralStorage', 'FunctionUrlConfig',
    'RuntimeManagementConfig', 'LoggingConfig', 'RecursiveLoop', 'SourceKMSKeyArn', 'TenancyConfig', 'DurableConfig',
    'CapacityProviderConfig', 'FunctionScalingConfig', 'PublishToLatestPublished', 'VersionDeletionPolicy'],
  Api: ['Auth', 'Name', 'DefinitionUri', 'CacheClusterEnabled', 'CacheClusterSize', 'MergeDefinitions', 'Variables',
    'EndpointConfiguration', 'MethodSettings', 'BinaryMediaTypes', 'MinimumCompressionSize', 'Cors',
    'GatewayResponses', 'AccessLogSetting', 'CanarySetting', 'TracingEnabled', 'OpenApiVersion', 'Domain',
    'AlwaysDeploy', 'PropagateTags', 'SecurityPolicy', 'EndpointAccessMode'],
  HttpApi: ['Auth', 'AccessLogSettings', 'StageVariables', 'Tags', 'CorsConfiguration', 'DefaultRouteSettings',
    'Domain', 'RouteSettings', 'FailOnWarnings', 'PropagateTags'],
  SimpleTable: ['SSESpecification'],
  StateMachine: ['PropagateTags'],
  LayerVersion: ['PublishLambdaVersion'],
  CapacityProvider: ['VpcConfig', 'OperatorRole', 'Tags', 'InstanceRequirements', 'ScalingConfig', 'KmsKeyArn',
    'PropagateTags'],
  WebSocketApi: ['AccessLogSettings', 'ApiKeySelectionExpression', 'DefaultRouteSettings', 'DisableExecuteApiEndpoint',
    'DisableSchemaValidation', 'Domain', 'FailOnWarnings', 'IpAddressType', 'PropagateTags',
    'RouteSelectionExpression', 'RouteSettings', 'StageVariables', 'Tags'],
};
/** Properties SAM uses to build a function's or state machine's role, not the function itself (cycle). */
const ROLE_PROPERTIES = new Set(['Policies', 'AssumeRolePolicyDocument', 'PermissionsBoundary', 'RolePath']);

/** SAM event Type -> the package's property type of its Properties, per SAM resource type. */
const EVENT_TYPES = {
  'AWS::Serverless::Function': {
    S3: 'S3Event', SNS: 'SNSEvent', SQS: 'SQSEvent', Kinesis: 'KinesisEvent', DynamoDB: 'DynamoDBEvent',
    Api: 'ApiEvent', Schedule: 'ScheduleEvent', CloudWatchEvent: 'CloudWatchEventEvent',
    CloudWatchLogs: 'CloudWatchLogsEvent', IoTRule: 'IoTRuleEvent', AlexaSkill: 'AlexaSkillEvent',
    EventBridgeRule: 'EventBridgeRuleEvent', HttpApi: 'HttpApiEvent',
    ScheduleV2: 'ScheduleV2', Cognito: null, DocumentDB: null, MQ: null, MSK: null, SelfManagedKafka: null,
  },
  'AWS::Serverless::StateMachine': {
    CloudWatchEvent: 'CloudWatchEventEvent', EventBridgeRule: 'EventBridgeRuleEvent', Schedule: 'ScheduleEvent',
    Api: 'ApiEvent', ScheduleV2: 'ScheduleV2',
  },
};

/**
 * The ScheduleV2 event's properties (samtranslator/model/eventsources/scheduler.py), each taken from the spec of the
 * AWS::Scheduler::Schedule property SAM passes it to, or SAM's own.
 */
function scheduleV2Struct() {
  const schedule = 'AWS::Scheduler::Schedule';
  const own = spec().ResourceTypes[schedule].Properties;
  const target = spec().PropertyTypes[`${schedule}.Target`].Properties;
  const take = (props, name) => ({ ...props[name], owner: schedule });
  const properties = {};
  for (const name of ['Description', 'EndDate', 'FlexibleTimeWindow', 'GroupName', 'KmsKeyArn', 'Name',
    'ScheduleExpression', 'ScheduleExpressionTimezone', 'StartDate', 'State']) properties[name] = take(own, name);
  for (const name of ['Input', 'RoleArn', 'RetryPolicy']) properties[name] = { ...take(target, name), Required: false };
  properties.FlexibleTimeWindow.Required = false;   // SAM defaults it to {Mode: OFF}
  properties.DeadLetterConfig = { any: true, object: true };
  properties.OmitName = { PrimitiveType: 'Boolean' };
  properties.PermissionsBoundary = { PrimitiveType: 'String' };
  return { Properties: properties };
}

// ---------------------------------------------------------------- paths and small helpers

const isObject = (v) => v !== null && typeof v === 'object' && !Array.isArray(v);
const kind = (v) => (v === null ? 'null' : Array.isArray(v) ? 'a list' : isObject(v) ? 'an object'
  : typeof v === 'string' ? 'a string' : typeof v === 'number' ? 'a number' : typeof v === 'boolean' ? 'a boolean'
    : typeof v);

/** `Resources.X.Properties[2]["aws:SourceAccount"]` from path segments (strings and list indexes). */
function formatPath(segments) {
  let out = '';
  for (const s of segments) {
    if (typeof s === 'number') out += `[${s}]`;
    else if (/^[A-Za-z0-9_$:-]+$/.test(s)) out += out ? `.${s}` : s;
    else out += `[${JSON.stringify(s)}]`;
  }
  return out;
}

/** The segments of a path formatPath wrote (the CLI uses them to find the line). */
function parsePath(text) {
  const segments = [];
  const re = /(?:^|\.)([A-Za-z0-9_$:-]+)|\[(\d+)\]|\[("(?:[^"\\]|\\.)*")\]/g;
  let m;
  while ((m = re.exec(text))) segments.push(m[1] !== undefined ? m[1] : m[2] !== undefined ? Number(m[2]) : JSON.parse(m[3]));
  return segments;
}

/** The intrinsic function name of a value `{Fn::X: ...}` / `{Ref: ...}`, else null. */
function intrinsicName(value) {
  if (!isObject(value)) return null;
  const keys = Object.keys(value);
  if (keys.length !== 1) return null;
  return keys[0] === 'Ref' || keys[0].startsWith('Fn::') ? keys[0] : null;
}

function editDistance(a, b) {
  const d = Array.from({ length: a.length + 1 }, (_, i) => [i, ...new Array(b.length).fill(0)]);
  for (let j = 1; j <= b.length; j++) d[0][j] = j;
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      d[i][j] = Math.min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + (a[i - 1].toLowerCase() === b[j - 1].toLowerCase() ? 0 : 1));
    }
  }
  return d[a.length][b.length];
}

/** `; did you mean X?` when one known name is close to the unknown one. */
function suggestion(name, known) {
  let best = null;
  let bestDistance = Infinity;
  for (const k of known) {
    const dist = editDistance(name, k);
    if (dist < bestDistance) { best = k; bestDistance = dist; }
  }
  if (best !== null && bestDistance <= Math.max(2, Math.floor(name.length / 4))) return `; did you mean ${best}?`;
  const longer = name.length >= 3 ? [...known].find((k) => k.toLowerCase().startsWith(name.toLowerCase())) : undefined;
  return longer ? `; did you mean ${longer}?` : '';
}

// ---------------------------------------------------------------- the check

/**
 * Checks a parsed template and returns every problem found, in template order, as {path, rule, reason}
 * (rules: this file's header). Never throws on bad input: a template that is not an object is one problem.
 *
 * @param {object} template the template as plain objects (YAML or JSON parsed; long-form intrinsics)
 * @param {{baseDir?: string}} [options] baseDir: the directory DefinitionUri paths are relative to (the template's
 *   directory; default the working directory)
 * @returns {{path: string, rule: string, reason: string}[]}
 */
function checkTemplate(template, options = {}) {
  const problems = [];
  const report = (segments, rule, reason) => problems.push({ path: formatPath(segments), rule, reason });
  if (!isObject(template)) {
    report([], 'template', `a template is an object of sections, not ${kind(template)}`);
    return problems;
  }
  const ctx = new Context(template, options.baseDir || process.cwd(), report);
  ctx.checkStructure();
  ctx.checkParameters();
  ctx.checkGlobals();
  ctx.checkResources();
  ctx.checkReferences();
  ctx.checkConditions();
  ctx.checkOutputs();
  ctx.checkCycles();
  ctx.checkSubstitutions();
  return problems;
}

class Context {
  constructor(template, baseDir, report) {
    this.template = template;
    this.baseDir = baseDir;
    this.report = report;
    this.parameters = isObject(template.Parameters) ? template.Parameters : {};
    this.resources = isObject(template.Resources) ? template.Resources : {};
    this.conditions = isObject(template.Conditions) ? template.Conditions : {};
    this.mappings = isObject(template.Mappings) ? template.Mappings : {};
    this.globals = isObject(template.Globals) ? template.Globals : {};
    /** logical id -> {type, by (the SAM resource), role (true: SAM's role of `by`)}: resources SAM generates. */
    this.generated = this.generatedResources();
  }

  typeOf(id) {
    const r = this.resources[id];
    return isObject(r) && typeof r.Type === 'string' ? r.Type : null;
  }

  propertiesOf(id) {
    const r = this.resources[id];
    return isObject(r) && isObject(r.Properties) ? r.Properties : {};
  }

  /** The resources SAM makes of the template's SAM resources that a template may refer to by logical id. */
  generatedResources() {
    const out = new Map();
    for (const id of Object.keys(this.resources)) {
      const type = this.typeOf(id);
      const props = this.propertiesOf(id);
      if (type !== 'AWS::Serverless::Function' && type !== 'AWS::Serverless::StateMachine') continue;
      if (props.Role === undefined) out.set(`${id}Role`, { type: 'AWS::IAM::Role', by: id, role: true });
      const alias = type === 'AWS::Serverless::Function' ? this.mergeGlobals(props).AutoPublishAlias : undefined;
      if (typeof alias === 'string') {
        out.set(`${id}Alias${alias}`, { type: 'AWS::Lambda::Alias', by: id });
      }
      for (const [event, e] of Object.entries(isObject(props.Events) ? props.Events : {})) {
        if (!isObject(e)) continue;
        const p = isObject(e.Properties) ? e.Properties : {};
        const eid = `${id}${event}`;
        if (e.Type === 'ScheduleV2') {
          out.set(eid, { type: 'AWS::Scheduler::Schedule', by: id, event });
          if (p.RoleArn === undefined) out.set(`${eid}Role`, { type: 'AWS::IAM::Role', by: id, event });
        } else if (e.Type === 'Schedule' || e.Type === 'CloudWatchEvent' || e.Type === 'EventBridgeRule') {
          out.set(eid, { type: 'AWS::Events::Rule', by: id, event });
        } else if (e.Type === 'HttpApi' || e.Type === 'Api') {
          out.set(`${eid}Permission`, { type: 'AWS::Lambda::Permission', by: id, event });
          if (e.Type === 'HttpApi' && p.ApiId === undefined) {
            out.set('ServerlessHttpApi', { type: 'AWS::ApiGatewayV2::Api', by: id, event });
          }
        }
      }
    }
    return out;
  }

  // ------------------------------------------------------------ structure, parameters

  checkStructure() {
    for (const key of Object.keys(this.template)) {
      if (!TOP_LEVEL.has(key)) this.report([key], 'template', `not a template section${suggestion(key, TOP_LEVEL)}`);
    }
    if (!isObject(this.template.Resources) || Object.keys(this.template.Resources).length === 0) {
      this.report(['Resources'], 'template', 'a template needs a Resources section with at least one resource');
    }
    for (const section of ['Parameters', 'Conditions', 'Outputs', 'Mappings', 'Globals']) {
      const v = this.template[section];
      if (v !== undefined && !isObject(v)) this.report([section], 'template', `must be an object, not ${kind(v)}`);
    }
    for (const section of ['Parameters', 'Resources', 'Outputs', 'Conditions', 'Mappings']) {
      for (const id of Object.keys(isObject(this.template[section]) ? this.template[section] : {})) {
        if (!/^[A-Za-z0-9]+$/.test(id)) this.report([section, id], 'template', 'a logical id is alphanumeric (A-Za-z0-9) only');
      }
    }
  }

  checkParameters() {
    for (const [name, p] of Object.entries(this.parameters)) {
      const at = ['Parameters', name];
      if (this.resources[name] !== undefined) this.report(at, 'template', `a resource has the same logical id ${name}`);
      if (!isObject(p)) { this.report(at, 'template', `a parameter is an object, not ${kind(p)}`); continue; }
      for (const key of Object.keys(p)) {
        if (!PARAMETER_KEYS.has(key)) this.report([...at, key], 'property', `not a parameter property${suggestion(key, PARAMETER_KEYS)}`);
      }
      if (p.Type === undefined) this.report(at, 'required', 'a parameter needs a Type');
      else if (typeof p.Type !== 'string' || !PARAMETER_TYPES.test(p.Type)) {
        this.report([...at, 'Type'], 'type', `${JSON.stringify(p.Type)} is not a parameter type (String, Number, List<Number>, CommaDelimitedList, AWS::...)`);
      }
    }
  }

  // ------------------------------------------------------------ resources and values (rule a)

  /** The spec of a resource type (Custom::* is a custom resource), or null when the spec lacks it. */
  resourceSpec(type) {
    if (typeof type === 'string' && type.startsWith('Custom::')) return spec().ResourceTypes['AWS::CloudFormation::CustomResource'];
    return spec().ResourceTypes[type] || null;
  }

  /**
   * The properties of a resource type: the spec's, with SAM_PROPERTIES added (and its `drop` names removed) for SAM
   * types. Each value is a property spec; `owner` is the resource type its Type names are resolved in.
   */
  propertySpecs(type) {
    const rs = this.resourceSpec(type);
    const props = {};
    for (const [name, p] of Object.entries(rs.Properties || {})) props[name] = { ...p, owner: type };
    const extra = SAM_PROPERTIES[type] || {};
    for (const name of extra.drop || []) delete props[name];
    for (const [name, p] of Object.entries(extra)) {
      if (name === 'drop') continue;
      if (p.from) props[name] = { ...spec().ResourceTypes[p.from[0]].Properties[p.from[1]], owner: p.from[0], Required: false };
      else props[name] = { ...p, owner: type };
    }
    return props;
  }

  checkResources() {
    for (const [id, r] of Object.entries(this.resources)) {
      const at = ['Resources', id];
      if (!isObject(r)) { this.report(at, 'template', `a resource is an object with a Type, not ${kind(r)}`); continue; }
      for (const key of Object.keys(r)) {
        if (!RESOURCE_KEYS.has(key)) this.report([...at, key], 'property', `not a resource attribute (Type, Properties, DependsOn, Condition, DeletionPolicy, UpdateReplacePolicy, Metadata, CreationPolicy, UpdatePolicy)${suggestion(key, RESOURCE_KEYS)}`);
      }
      for (const key of ['DeletionPolicy', 'UpdateReplacePolicy']) {
        if (r[key] !== undefined && intrinsicName(r[key]) === null && !DELETION_POLICIES.has(r[key])) {
          this.report([...at, key], 'shape', `${JSON.stringify(r[key])} is not one of Delete, Retain, Snapshot, RetainExceptOnCreate`);
        }
      }
      if (r.Type === undefined) { this.report(at, 'required', 'a resource needs a Type'); continue; }
      const rs = this.resourceSpec(r.Type);
      if (!rs) {
        const known = Object.keys(spec().ResourceTypes);
        this.report([...at, 'Type'], 'type', `${JSON.stringify(r.Type)} is not a resource type of the CloudFormation or SAM specification${typeof r.Type === 'string' ? suggestion(r.Type, known) : ''}`);
        continue;
      }
      if (r.Properties !== undefined && !isObject(r.Properties)) {
        this.report([...at, 'Properties'], 'shape', `Properties is an object, not ${kind(r.Properties)}`);
        continue;
      }
      const props = r.Properties || {};
      const specs = this.propertySpecs(r.Type);
      const isSam = r.Type.startsWith('AWS::Serverless::');
      for (const [name, value] of Object.entries(props)) {
        const p = specs[name];
        if (!p) {
          if (rs.AdditionalProperties) continue;
          this.report([...at, 'Properties', name], 'property', `${r.Type} has no property ${name}${suggestion(name, Object.keys(specs))}`);
          continue;
        }
        if (isSam && name === 'Events') { this.checkEvents(id, r.Type, value, [...at, 'Properties', name]); continue; }
        if (isSam && name === 'Policies') { this.checkPolicies(r.Type, value, [...at, 'Properties', name]); continue; }
        this.checkValue(value, p, p.owner, [...at, 'Properties', name]);
      }
      const merged = r.Type === 'AWS::Serverless::Function' ? this.mergeGlobals(props) : props;
      for (const [name, p] of Object.entries(specs)) {
        if (p.Required && merged[name] === undefined) this.report([...at, 'Properties'], 'required', `${r.Type} requires ${name}`);
      }
      if (r.Type === 'AWS::Serverless::Function') this.checkSamFunctionRequired(merged, [...at, 'Properties']);
      if (r.Type === 'AWS::Serverless::StateMachine' && props.Definition === undefined && props.DefinitionUri === undefined) {
        this.report([...at, 'Properties'], 'required', 'a SAM state machine needs Definition or DefinitionUri');
      }
    }
  }

  /** A function's properties with Globals.Function merged in as SAM merges them (globals.py GlobalProperties). */
  mergeGlobals(props) {
    const merge = (g, l) => {
      if (l === undefined) return g;
      const gKind = intrinsicName(g) ? 'p' : Array.isArray(g) ? 'l' : isObject(g) ? 'd' : 'p';
      const lKind = intrinsicName(l) ? 'p' : Array.isArray(l) ? 'l' : isObject(l) ? 'd' : 'p';
      if (gKind !== lKind || gKind === 'p') return l;
      if (gKind === 'l') return [...g, ...l];
      const out = { ...g };
      for (const [k, v] of Object.entries(l)) out[k] = k in out ? merge(out[k], v) : v;
      return out;
    };
    const g = isObject(this.globals.Function) ? this.globals.Function : {};
    return merge(g, props);
  }

  /** What SAM requires of a function beyond the spec (Globals merged): code, and Handler and Runtime for a Zip. */
  checkSamFunctionRequired(merged, at) {
    if (merged.CodeUri === undefined && merged.InlineCode === undefined && merged.ImageUri === undefined) {
      this.report(at, 'required', 'a SAM function needs CodeUri, InlineCode or ImageUri (here or in Globals.Function)');
    }
    if (merged.PackageType !== 'Image') {
      for (const name of ['Handler', 'Runtime']) {
        if (merged[name] === undefined) this.report(at, 'required', `a SAM function of a Zip package needs ${name} (here or in Globals.Function)`);
      }
    }
  }

  /** A property type by name, resolved as the spec does: `<owner>.<Name>`, else the shared `<Name>` (Tag). */
  structSpec(name, owner) {
    if (name === 'ScheduleV2') return scheduleV2Struct();
    const types = spec().PropertyTypes;
    return types[`${owner}.${name}`] || types[name] || null;
  }

  /**
   * Checks one value against a property spec (PrimitiveType, Type List/Map/<struct>, the SAM unions), reporting
   * shape, property and required problems under `at`.
   */
  checkValue(value, p, owner, at) {
    if (p.any) {
      if (p.object && !isObject(value)) this.report(at, 'shape', `must be an object, not ${kind(value)}`);
      return;
    }
    if (p.struct) return this.checkStruct(value, p.struct, owner, at);
    if (value === null) { this.report(at, 'shape', 'null: CloudFormation refuses null values (leave the property out)'); return; }
    const fn = intrinsicName(value);
    if (fn === 'Fn::If' && Array.isArray(value[fn]) && value[fn].length === 3) {
      for (const i of [1, 2]) {
        const branch = value[fn][i];
        if (!(isObject(branch) && branch.Ref === 'AWS::NoValue')) this.checkValue(branch, p, owner, [...at, fn, i]);
      }
      return;
    }
    if (fn) return;   // any other intrinsic function stands for any value
    if (p.PrimitiveTypes || p.Types || p.ItemTypes || p.PrimitiveItemTypes || p.InclusiveItemTypes || p.InclusivePrimitiveItemTypes) {
      return this.checkUnion(value, p, owner, at);
    }
    if (p.PrimitiveType) return this.checkPrimitive(value, p.PrimitiveType, at);
    if (p.Type === 'List') {
      if (!Array.isArray(value)) { this.report(at, 'shape', `must be a list${p.ItemType ? ` of ${p.ItemType}` : ` of ${p.PrimitiveItemType}`}, not ${kind(value)}`); return; }
      value.forEach((item, i) => this.checkItem(item, p, owner, [...at, i]));
      return;
    }
    if (p.Type === 'Map') {
      if (!isObject(value)) { this.report(at, 'shape', `must be a map of ${p.ItemType || p.PrimitiveItemType}, not ${kind(value)}`); return; }
      for (const [k, item] of Object.entries(value)) this.checkItem(item, p, owner, [...at, k]);
      return;
    }
    if (p.Type) {
      const s = this.structSpec(p.Type, owner);
      if (!s) return this.report(at, 'shape', `the specification names type ${p.Type}, which it does not define (not checked)`);
      return this.checkStruct(value, s, owner, at, p.Type);
    }
  }

  /** One item of a List or Map property (ItemType, PrimitiveItemType, or a Map of lists: PrimitiveItemItemType). */
  checkItem(item, p, owner, at) {
    if (p.PrimitiveItemItemType) {
      return this.checkValue(item, { Type: 'List', PrimitiveItemType: p.PrimitiveItemItemType }, owner, at);
    }
    if (p.ItemType) return this.checkValue(item, { Type: p.ItemType }, owner, at);
    return this.checkValue(item, { PrimitiveType: p.PrimitiveItemType }, owner, at);
  }

  /** A SAM union: a scalar of PrimitiveTypes, an object of one of Types, or a list of the item alternatives. */
  checkUnion(value, p, owner, at) {
    if (Array.isArray(value)) {
      const itemPrimitives = [...(p.PrimitiveItemTypes || []), ...(p.InclusivePrimitiveItemTypes || [])];
      const itemTypes = [...(p.ItemTypes || []), ...(p.InclusiveItemTypes || [])];
      if (itemPrimitives.length === 0 && itemTypes.length === 0) {
        this.report(at, 'shape', `must be ${this.describeUnion(p)}, not a list`);
        return;
      }
      value.forEach((item, i) => this.checkAlternatives(item, itemPrimitives, itemTypes, owner, [...at, i]));
      return;
    }
    this.checkAlternatives(value, p.PrimitiveTypes || [], p.Types || [], owner, at);
  }

  describeUnion(p) {
    const parts = [...(p.PrimitiveTypes || []), ...(p.Types || [])];
    const items = [...(p.PrimitiveItemTypes || []), ...(p.ItemTypes || []), ...(p.InclusivePrimitiveItemTypes || []), ...(p.InclusiveItemTypes || [])];
    if (items.length) parts.push(`a list of ${items.join(' / ')}`);
    return parts.join(' or ');
  }

  /** A value that is one of some primitive types or some property types: the alternative it fits, or a problem. */
  checkAlternatives(value, primitives, types, owner, at) {
    if (intrinsicName(value)) return this.checkValue(value, { PrimitiveType: 'String' }, owner, at);
    if (!isObject(value)) {
      if (primitives.some((t) => this.primitiveProblem(value, t) === null)) return;
      this.report(at, 'shape', `must be ${[...primitives, ...types].join(' or ')}, not ${kind(value)}`);
      return;
    }
    if (types.length === 0) { this.report(at, 'shape', `must be ${primitives.join(' or ')}, not an object`); return; }
    let best = null;
    for (const t of types) {
      const found = [];
      const sub = new Context(this.template, this.baseDir, (segments, rule, reason) => found.push([segments, rule, reason]));
      sub.checkValue(value, { Type: t }, owner, at);
      if (found.length === 0) return;
      if (!best || found.length < best.length) best = found;
    }
    if (types.length > 1) this.report(at, 'shape', `matches none of ${types.join(', ')}; closest:`);
    for (const [segments, rule, reason] of best) this.report(segments, rule, reason);
  }

  checkStruct(value, s, owner, at, typeName) {
    if (s.PrimitiveType || s.Type) return this.checkValue(value, s, owner, at);   // an alias of a primitive or list
    if (value === null) { this.report(at, 'shape', 'null: CloudFormation refuses null values (leave the property out)'); return; }
    const fn = intrinsicName(value);
    if (fn === 'Fn::If' && Array.isArray(value[fn]) && value[fn].length === 3) {
      for (const i of [1, 2]) {
        const branch = value[fn][i];
        if (!(isObject(branch) && branch.Ref === 'AWS::NoValue')) this.checkStruct(branch, s, owner, [...at, fn, i], typeName);
      }
      return;
    }
    if (fn) return;   // any other intrinsic function stands for the whole object
    if (!isObject(value)) {
      this.report(at, 'shape', `must be an object${typeName ? ` (${typeName})` : ''}, not ${kind(value)}`);
      return;
    }
    const props = s.Properties || {};
    for (const [name, v] of Object.entries(value)) {
      const p = props[name];
      if (!p) {
        this.report([...at, name], 'property', `${typeName || 'this object'} has no property ${name}${suggestion(name, Object.keys(props))}`);
        continue;
      }
      this.checkValue(v, p, p.owner || owner, [...at, name]);
    }
    for (const [name, p] of Object.entries(props)) {
      if (p.Required && value[name] === undefined) this.report(at, 'required', `${typeName || 'this object'} requires ${name}`);
    }
  }

  /** The problem of a scalar against a primitive type, or null; CloudFormation converts scalars as noted. */
  primitiveProblem(value, type) {
    const text = typeof value === 'string' ? value : null;
    switch (type) {
      case 'String':
        return ['string', 'number', 'boolean'].includes(typeof value) ? null : `must be a String, not ${kind(value)}`;
      case 'Integer':
      case 'Long':
        if (Number.isInteger(value) || (text !== null && /^-?\d+$/.test(text.trim()))) return null;
        return `must be an ${type === 'Long' ? 'integer (Long)' : 'Integer'}, not ${kind(value)}${text !== null || typeof value === 'number' ? ` ${JSON.stringify(value)}` : ''}`;
      case 'Double':
        if (typeof value === 'number' || (text !== null && text.trim() !== '' && Number.isFinite(Number(text)))) return null;
        return `must be a number (Double), not ${kind(value)}${text !== null ? ` ${JSON.stringify(value)}` : ''}`;
      case 'Boolean':
        if (typeof value === 'boolean' || (text !== null && /^(true|false)$/i.test(text))) return null;
        return `must be a Boolean (true or false), not ${kind(value)}${text !== null || typeof value === 'number' ? ` ${JSON.stringify(value)}` : ''}`;
      case 'Timestamp':
        if (text !== null && /^\d{4}-\d{2}-\d{2}(T[\d:.]+(Z|[+-]\d{2}:?\d{2})?)?$/.test(text)) return null;
        return `must be a Timestamp (ISO 8601, e.g. 2026-01-31T00:00:00Z), not ${kind(value)}${text !== null ? ` ${JSON.stringify(value)}` : ''}`;
      case 'Json':
        if (isObject(value) || Array.isArray(value)) return null;
        if (text !== null) { try { const parsed = JSON.parse(text); if (typeof parsed === 'object' && parsed !== null) return null; } catch { /* below */ } }
        return `must be a JSON object (Json), not ${kind(value)}`;
      default:
        return `has primitive type ${type}, which this check does not know`;
    }
  }

  checkPrimitive(value, type, at) {
    const problem = this.primitiveProblem(value, type);
    if (problem) this.report(at, 'shape', problem);
  }

  // ------------------------------------------------------------ SAM: Policies, Events, Globals

  /**
   * SAM Policies: a managed policy name or ARN, a policy document, or a list of those and SAM policy templates
   * (`- DynamoDBCrudPolicy: {TableName: ...}`), each template checked against its spec type. A state machine may
   * use every policy template a function may (SAM's docs; the package lists two for state machines).
   */
  checkPolicies(type, value, at) {
    const fnOwner = 'AWS::Serverless::Function';
    const doc = this.structSpec('IAMPolicyDocument', type);
    const templates = { ...this.structSpec('SAMPolicyTemplate', fnOwner).Properties, ...this.structSpec('SAMPolicyTemplate', type).Properties };
    for (const [name, params] of Object.entries(SAM_POLICY_TEMPLATES)) {
      const properties = Object.fromEntries(params.map((param) => [param, { PrimitiveType: 'String', Required: true }]));
      templates[name] = { struct: { Properties: properties } };
    }
    const one = (v, where) => {
      if (intrinsicName(v) || typeof v === 'string') return;
      if (!isObject(v)) { this.report(where, 'shape', `a policy is a managed policy name or ARN, a policy document or a SAM policy template, not ${kind(v)}`); return; }
      if ('Statement' in v) { this.checkStruct(v, doc, type, where, 'IAMPolicyDocument'); return; }
      const keys = Object.keys(v);
      if (keys.length !== 1) { this.report(where, 'shape', `a SAM policy template is an object of one key (its name), not of ${keys.length} keys (${keys.join(', ')}); a policy document has a Statement`); return; }
      const t = templates[keys[0]];
      if (!t) { this.report([...where, keys[0]], 'property', `not a SAM policy template${suggestion(keys[0], Object.keys(templates))}`); return; }
      this.checkStruct(v[keys[0]], t.struct || this.structSpec(t.Type, fnOwner), fnOwner, [...where, keys[0]], `${keys[0]} parameters`);
    };
    if (Array.isArray(value)) value.forEach((v, i) => one(v, [...at, i]));
    else one(value, at);
  }

  /** SAM Events: each {Type, Properties}, checked against the property type of its Type (header: event). */
  checkEvents(id, type, events, at) {
    if (intrinsicName(events)) return;
    if (!isObject(events)) { this.report(at, 'shape', `Events is a map of event sources, not ${kind(events)}`); return; }
    const known = EVENT_TYPES[type] || {};
    for (const [name, e] of Object.entries(events)) {
      const where = [...at, name];
      if (!isObject(e)) { this.report(where, 'shape', `an event source is an object {Type, Properties}, not ${kind(e)}`); continue; }
      for (const key of Object.keys(e)) {
        if (key !== 'Type' && key !== 'Properties') this.report([...where, key], 'property', `an event source has only Type and Properties${suggestion(key, ['Type', 'Properties'])}`);
      }
      if (!(e.Type in known)) {
        this.report([...where, 'Type'], 'event', `${JSON.stringify(e.Type)} is not an event source type of ${type} (${Object.keys(known).join(', ')})${typeof e.Type === 'string' ? suggestion(e.Type, Object.keys(known)) : ''}`);
        continue;
      }
      const propsType = known[e.Type];
      if (e.Properties === undefined) {
        if (propsType) this.report(where, 'required', `a ${e.Type} event needs Properties`);
        continue;
      }
      if (propsType) this.checkStruct(e.Properties, this.structSpec(propsType, type), type, [...where, 'Properties'], `${e.Type} event Properties`);
      else if (!isObject(e.Properties)) this.report([...where, 'Properties'], 'shape', `must be an object, not ${kind(e.Properties)}`);
    }
    this.checkHttpApiRoutes(id, events, at);
  }

  /** HttpApi events: ApiId names a template HttpApi, Authorizer one of its authorizers, and each route is declared once. */
  checkHttpApiRoutes(id, events, at) {
    for (const [name, e] of Object.entries(events)) {
      if (!isObject(e) || e.Type !== 'HttpApi' || !isObject(e.Properties)) continue;
      const p = e.Properties;
      const where = [...at, name, 'Properties'];
      let apiId = 'ServerlessHttpApi';
      if (p.ApiId !== undefined) {
        if (!isObject(p.ApiId) || typeof p.ApiId.Ref !== 'string' || Object.keys(p.ApiId).length !== 1) {
          this.report([...where, 'ApiId'], 'event', 'ApiId must be {Ref: <an AWS::Serverless::HttpApi of this template>} (SAM adds the route to that API)');
          continue;
        }
        apiId = p.ApiId.Ref;
        if (this.typeOf(apiId) !== 'AWS::Serverless::HttpApi') {
          // an unknown name is the ref rule's, an unknown type the type rule's
          if (this.resourceSpec(this.typeOf(apiId))) this.report([...where, 'ApiId'], 'event', `ApiId names ${apiId}, of type ${this.typeOf(apiId)}, not an AWS::Serverless::HttpApi`);
          continue;
        }
        const auth = isObject(p.Auth) ? p.Auth.Authorizer : undefined;
        const apiAuth = this.propertiesOf(apiId).Auth;
        const authorizers = isObject(apiAuth) && isObject(apiAuth.Authorizers) ? Object.keys(apiAuth.Authorizers) : [];
        if (typeof auth === 'string' && auth !== 'NONE' && !authorizers.includes(auth)) {
          this.report([...where, 'Auth', 'Authorizer'], 'event', `${auth} is not an authorizer of ${apiId} (${['NONE', ...authorizers].join(', ')})`);
        }
      }
      const route = `${typeof p.Method === 'string' ? p.Method.toUpperCase() : 'ANY'} ${typeof p.Path === 'string' ? p.Path : '$default'}`;
      this.routes = this.routes || new Map();
      const key = `${apiId} ${route}`;
      const first = this.routes.get(key);
      if (first) this.report(where, 'event', `route ${route} of ${apiId} is already declared by ${first}: API Gateway refuses a second one`);
      else this.routes.set(key, formatPath([...at, name]));
    }
  }

  /** Globals: sections and properties SAM supports, each value checked against its SAM type's spec. */
  checkGlobals() {
    for (const [section, props] of Object.entries(this.globals)) {
      const at = ['Globals', section];
      if (!(section in GLOBALS)) { this.report(at, 'globals', `SAM has no Globals section ${section} (${Object.keys(GLOBALS).join(', ')})${suggestion(section, Object.keys(GLOBALS))}`); continue; }
      if (!isObject(props)) { this.report(at, 'globals', `a Globals section is an object of properties, not ${kind(props)}`); continue; }
      const type = `AWS::Serverless::${section}`;
      const specs = this.resourceSpec(type) ? this.propertySpecs(type) : {};
      for (const [name, value] of Object.entries(props)) {
        if (!GLOBALS[section].includes(name)) {
          this.report([...at, name], 'globals', `SAM does not take ${name} from Globals.${section} (it takes ${GLOBALS[section].join(', ')})${suggestion(name, GLOBALS[section])}`);
          continue;
        }
        if (specs[name]) this.checkValue(value, specs[name], specs[name].owner, [...at, name]);
      }
    }
  }

  // ------------------------------------------------------------ references (rules b, d)

  /** Every place a reference may stand: [segments, value, scope] (scope 'condition' allows parameters only). */
  *referenceRoots() {
    for (const [section, props] of Object.entries(this.globals)) yield [['Globals', section], props, 'resource'];
    for (const [id, r] of Object.entries(this.resources)) {
      if (!isObject(r)) continue;
      for (const key of ['Properties', 'Metadata', 'CreationPolicy', 'UpdatePolicy']) {
        if (r[key] !== undefined) yield [['Resources', id, key], r[key], 'resource'];
      }
    }
    for (const [id, o] of Object.entries(isObject(this.template.Outputs) ? this.template.Outputs : {})) {
      yield [['Outputs', id], o, 'output'];
    }
    for (const [id, c] of Object.entries(this.conditions)) yield [['Conditions', id], c, 'condition'];
  }

  /** Calls visit(fn, args, segments) for every intrinsic function under value. */
  walkIntrinsics(value, at, visit) {
    if (Array.isArray(value)) { value.forEach((v, i) => this.walkIntrinsics(v, [...at, i], visit)); return; }
    if (!isObject(value)) return;
    const fn = intrinsicName(value);
    if (fn) visit(fn, value[fn], [...at, fn]);
    for (const [k, v] of Object.entries(value)) this.walkIntrinsics(v, [...at, k], visit);
  }

  checkReferences() {
    for (const [at, root, scope] of this.referenceRoots()) {
      this.walkIntrinsics(root, at, (fn, args, where) => this.checkIntrinsic(fn, args, where, scope));
    }
    for (const [id, r] of Object.entries(this.resources)) {
      if (!isObject(r)) continue;
      for (const [target, where] of this.dependsOn(id)) {
        if (!(target in this.resources)) this.report(where, 'ref', `DependsOn names ${JSON.stringify(target)}, which is not a resource of this template${suggestion(String(target), Object.keys(this.resources))}`);
      }
      if (r.Condition !== undefined && !(typeof r.Condition === 'string' && r.Condition in this.conditions)) {
        this.report(['Resources', id, 'Condition'], 'condition', `${JSON.stringify(r.Condition)} is not a condition of Conditions`);
      }
    }
  }

  /** The DependsOn targets of a resource with their paths. */
  dependsOn(id) {
    const d = this.resources[id].DependsOn;
    if (d === undefined) return [];
    const at = ['Resources', id, 'DependsOn'];
    if (typeof d === 'string') return [[d, at]];
    if (Array.isArray(d)) return d.map((t, i) => [t, [...at, i]]);
    this.report(at, 'shape', `DependsOn is a logical id or a list of them, not ${kind(d)}`);
    return [];
  }

  checkIntrinsic(fn, args, at, scope) {
    if (!(fn in INTRINSICS)) { this.report(at, 'intrinsic', `${fn} is not an intrinsic function${suggestion(fn, Object.keys(INTRINSICS))}`); return; }
    const arity = INTRINSICS[fn];
    if (arity && fn !== 'Fn::GetAtt' && fn !== 'Fn::Sub') {
      if (!Array.isArray(args) || args.length < arity[0] || args.length > arity[1]) {
        this.report(at, 'intrinsic', `${fn} takes a list of ${arity[0] === arity[1] ? arity[0] : `${arity[0]} to ${arity[1]}`} arguments, not ${kind(args)}${Array.isArray(args) ? ` of ${args.length}` : ''}`);
        return;
      }
    }
    switch (fn) {
      case 'Ref': return this.checkRef(args, at, scope);
      case 'Fn::GetAtt': return this.checkGetAtt(args, at, scope);
      case 'Fn::Sub': return this.checkSub(args, at, scope);
      case 'Fn::If':
        if (typeof args[0] !== 'string' || !(args[0] in this.conditions)) {
          this.report([...at, 0], 'condition', `Fn::If names ${JSON.stringify(args[0])}, which is not a condition of Conditions`);
        }
        return;
      case 'Fn::FindInMap':
        if (typeof args[0] === 'string' && !(args[0] in this.mappings)) this.report([...at, 0], 'ref', `Fn::FindInMap names ${JSON.stringify(args[0])}, which is not a mapping of Mappings`);
        return;
      default:
    }
  }

  /** Whether a Ref target exists: parameter, pseudo parameter, resource, generated resource, or SAM's Res.Prop. */
  refProblem(name, scope) {
    if (typeof name !== 'string') return `Ref takes a logical id (a string), not ${kind(name)}`;
    if (PSEUDO_PARAMETERS.has(name) || name in this.parameters) return null;
    if (scope === 'condition') {
      return name in this.resources ? `a condition may Ref only parameters and pseudo parameters, not the resource ${name}`
        : `${name} is not a parameter or pseudo parameter`;
    }
    if (name in this.resources || this.generated.has(name)) return null;
    const dot = name.indexOf('.');
    if (dot > 0) {
      const [id, prop] = [name.slice(0, dot), name.slice(dot + 1)];
      const type = this.typeOf(id);
      const props = type === 'AWS::Serverless::Function' ? this.mergeGlobals(this.propertiesOf(id)) : this.propertiesOf(id);
      const needs = { Alias: 'AutoPublishAlias', Version: 'AutoPublishAlias', DestinationTopic: 'EventInvokeConfig', DestinationQueue: 'EventInvokeConfig' };
      if (type && (SAM_REFERABLE[type] || []).includes(prop)) {
        if (type !== 'AWS::Serverless::Function' || !needs[prop] || props[needs[prop]] !== undefined) return null;
        return `SAM makes ${id}.${prop} only for a function with ${needs[prop]}, which ${id} does not set`;
      }
      if (type) return `${prop} is not a property SAM lets a Ref name on ${type} (${(SAM_REFERABLE[type] || []).join(', ') || 'none'})`;
    }
    const known = [...Object.keys(this.parameters), ...Object.keys(this.resources), ...PSEUDO_PARAMETERS];
    return `${name} is not a parameter, resource or pseudo parameter of this template${suggestion(name, known)}`;
  }

  checkRef(name, at, scope) {
    const problem = this.refProblem(name, scope);
    if (problem) this.report(at, 'ref', problem);
  }

  /** The attributes of a resource (its type's in the spec, or those of what SAM makes of it); null: any. */
  attributesOf(id) {
    const g = this.generated.get(id);
    let type = g ? g.type : this.typeOf(id);
    if (type === null) return [];
    type = SAM_GENERATES[type] || type;
    if (type === 'AWS::CloudFormation::Stack' || type === 'AWS::CloudFormation::CustomResource' || type.startsWith('Custom::')) return null;
    const rs = spec().ResourceTypes[type];
    return rs ? Object.keys(rs.Attributes || {}) : null;
  }

  getAttProblem(resource, attribute, scope) {
    if (scope === 'condition') return 'a condition may not use Fn::GetAtt (only parameters are known when conditions are evaluated)';
    if (!(resource in this.resources) && !this.generated.has(resource)) {
      const what = resource in this.parameters ? `${resource} is a parameter, not a resource` : `${resource} is not a resource of this template`;
      return `${what}${suggestion(resource, Object.keys(this.resources))}`;
    }
    if (typeof attribute !== 'string') return null;   // an attribute given by an intrinsic function
    const attrs = this.attributesOf(resource);
    if (attrs === null) return null;
    if (this.typeOf(resource) === 'AWS::CloudFormation::Stack' && attribute.startsWith('Outputs.')) return null;
    if (attrs.includes(attribute)) return null;
    const type = this.generated.has(resource) ? `${this.generated.get(resource).type} (generated by SAM for ${this.generated.get(resource).by})` : this.typeOf(resource);
    return `${type} has no attribute ${attribute} (it has ${attrs.length ? attrs.join(', ') : 'none'})${suggestion(attribute, attrs)}`;
  }

  checkGetAtt(args, at, scope) {
    let resource;
    let attribute;
    if (typeof args === 'string' && args.includes('.')) {
      resource = args.slice(0, args.indexOf('.'));
      attribute = args.slice(args.indexOf('.') + 1);
    } else if (Array.isArray(args) && args.length === 2 && typeof args[0] === 'string') {
      [resource, attribute] = args;
      if (typeof attribute !== 'string' && !intrinsicName(attribute)) {
        this.report([...at, 1], 'intrinsic', `an attribute name is a string, not ${kind(attribute)}`);
        return;
      }
    } else {
      this.report(at, 'intrinsic', 'Fn::GetAtt takes [Resource, Attribute] or "Resource.Attribute"');
      return;
    }
    const problem = this.getAttProblem(resource, attribute, scope);
    if (problem) this.report(at, 'getatt', problem);
  }

  /** The ${Var} names of a Sub string (not ${!Literal}). */
  static subVariables(text) {
    const vars = [];
    const re = /\$\{([^}]*)\}/g;
    let m;
    while ((m = re.exec(text))) if (!m[1].startsWith('!')) vars.push(m[1]);
    return vars;
  }

  checkSub(args, at, scope) {
    let text;
    let vars = {};
    if (typeof args === 'string') text = args;
    else if (Array.isArray(args) && args.length === 2 && typeof args[0] === 'string' && isObject(args[1])) [text, vars] = args;
    else if (Array.isArray(args) && args.length === 1 && typeof args[0] === 'string') [text] = args;
    else { this.report(at, 'intrinsic', 'Fn::Sub takes a string or [string, {Var: value, ...}]'); return; }
    for (const name of Context.subVariables(text)) {
      if (name in vars) continue;
      const dot = name.indexOf('.');
      const problem = dot > 0 && !PSEUDO_PARAMETERS.has(name) && !(name in this.parameters)
        ? this.getAttProblem(name.slice(0, dot), name.slice(dot + 1), scope)
        : this.refProblem(name, scope);
      if (problem) this.report(Array.isArray(args) ? [...at, 0] : at, 'sub', `\${${name}}: ${problem}${Object.keys(vars).length ? ` (nor a key of this Sub's map: ${Object.keys(vars).join(', ')})` : ''}`);
    }
    for (const key of Object.keys(vars)) {
      if (!Context.subVariables(text).includes(key)) this.report([...at, 1, key], 'sub', `\${${key}} does not occur in the Sub string: the variable is unused`);
    }
  }

  checkConditions() {
    for (const [id, c] of Object.entries(this.conditions)) {
      const fn = isObject(c) && Object.keys(c).length === 1 ? Object.keys(c)[0] : null;
      if (!fn || !CONDITION_FUNCTIONS.has(fn)) {
        this.report(['Conditions', id], 'condition', 'a condition is Fn::Equals, Fn::Not, Fn::And, Fn::Or or {Condition: <name>}');
      }
      this.walkConditionRefs(c, ['Conditions', id]);
    }
  }

  /** `{Condition: name}` inside a condition names another condition. */
  walkConditionRefs(value, at) {
    if (Array.isArray(value)) { value.forEach((v, i) => this.walkConditionRefs(v, [...at, i])); return; }
    if (!isObject(value)) return;
    if (Object.keys(value).length === 1 && 'Condition' in value && !(typeof value.Condition === 'string' && value.Condition in this.conditions)) {
      this.report([...at, 'Condition'], 'condition', `${JSON.stringify(value.Condition)} is not a condition of Conditions`);
    }
    for (const [k, v] of Object.entries(value)) this.walkConditionRefs(v, [...at, k]);
  }

  checkOutputs() {
    for (const [id, o] of Object.entries(isObject(this.template.Outputs) ? this.template.Outputs : {})) {
      const at = ['Outputs', id];
      if (!isObject(o)) { this.report(at, 'output', `an output is an object with a Value, not ${kind(o)}`); continue; }
      for (const key of Object.keys(o)) {
        if (!OUTPUT_KEYS.has(key)) this.report([...at, key], 'output', `not an output key (Description, Value, Export, Condition)${suggestion(key, OUTPUT_KEYS)}`);
      }
      if (o.Value === undefined) this.report(at, 'output', 'an output needs a Value');
      else if (o.Value === null || (isObject(o.Value) && !intrinsicName(o.Value))) this.report([...at, 'Value'], 'output', `an output's Value is a string or an intrinsic function, not ${kind(o.Value)}`);
      if (o.Export !== undefined && !(isObject(o.Export) && o.Export.Name !== undefined && Object.keys(o.Export).length === 1)) {
        this.report([...at, 'Export'], 'output', 'Export is {Name: <export name>}');
      }
      if (o.Condition !== undefined && !(typeof o.Condition === 'string' && o.Condition in this.conditions)) {
        this.report([...at, 'Condition'], 'condition', `${JSON.stringify(o.Condition)} is not a condition of Conditions`);
      }
    }
  }

  // ------------------------------------------------------------ cycles (rule b)

  /**
   * The dependency graph: node -> [{to, at}] with the path of the reference. A SAM function or state machine depends
   * on its generated role, which holds the references of its Policies (ROLE_PROPERTIES); an event's generated
   * resources depend on the function and hold the event's references; an HttpApi (or Api) depends on every function
   * routed to it, since SAM writes their ARNs into its definition.
   */
  dependencyGraph() {
    const graph = new Map();
    // at: the path of the reference; why: what SAM makes of it, where no reference in the template is the edge
    const edge = (from, to, at, why) => {
      if (!graph.has(from)) graph.set(from, []);
      graph.get(from).push({ to, at, why });
    };
    const targets = (value, at, add) => this.walkIntrinsics(value, at, (fn, args, where) => {
      for (const t of this.referencedResources(fn, args)) add(t, where);
    });
    for (const [id, r] of Object.entries(this.resources)) {
      if (!isObject(r)) continue;
      const type = this.typeOf(id);
      const props = isObject(r.Properties) ? r.Properties : {};
      const samRole = (type === 'AWS::Serverless::Function' || type === 'AWS::Serverless::StateMachine') && this.generated.has(`${id}Role`) ? `${id}Role` : null;
      for (const [target, at] of this.dependsOn(id)) edge(id, target, at);
      if (samRole) edge(id, samRole, ['Resources', id], `SAM gives ${id} the role ${samRole}`);
      const globalsOfType = type === 'AWS::Serverless::Function' && isObject(this.globals.Function) ? this.globals.Function : {};
      const entries = [
        ...Object.entries(globalsOfType).map(([n, v]) => ({ n, v, at: ['Globals', 'Function', n] })),
        ...Object.entries(props).map(([n, v]) => ({ n, v, at: ['Resources', id, 'Properties', n] })),
      ];
      for (const { n, v, at } of entries) {
        if (type && type.startsWith('AWS::Serverless::') && n === 'Events' && isObject(v)) {
          for (const [ev, e] of Object.entries(v)) {
            if (!isObject(e)) continue;
            const evAt = [...at, ev];
            const node = this.generated.has(`${id}${ev}`) ? `${id}${ev}` : this.generated.has(`${id}${ev}Permission`) ? `${id}${ev}Permission` : `${id}${ev}`;
            edge(node, id, evAt, `SAM's ${node} for the ${ev} event targets ${id}`);
            targets(e.Properties, [...evAt, 'Properties'], (t, where) => edge(node, t, where));
            const eventRole = `${id}${ev}Role`;
            if (this.generated.has(eventRole)) {
              edge(node, eventRole, evAt, `SAM gives ${node} the role ${eventRole}`);
              edge(eventRole, id, evAt, `SAM's ${eventRole} may invoke ${id}`);
            }
            const p = isObject(e.Properties) ? e.Properties : {};
            // SAM writes the function's ARN into the API's definition: the API depends on the function
            const api = e.Type === 'HttpApi' ? ['ApiId', 'AWS::Serverless::HttpApi'] : e.Type === 'Api' ? ['RestApiId', 'AWS::Serverless::Api'] : null;
            if (api && isObject(p[api[0]]) && typeof p[api[0]].Ref === 'string' && this.typeOf(p[api[0]].Ref) === api[1]) {
              edge(p[api[0]].Ref, id, [...evAt, 'Properties', api[0]], `${formatPath([...evAt, 'Properties', api[0]])}: SAM writes ${id}'s ARN into the routes of ${p[api[0]].Ref}`);
            }
          }
          continue;
        }
        const from = samRole && ROLE_PROPERTIES.has(n) ? samRole : id;
        targets(v, at, (t, where) => edge(from, t, where));
      }
    }
    return graph;
  }

  /** The resources (template or generated) a reference names. */
  referencedResources(fn, args) {
    const known = (name) => (name in this.resources || this.generated.has(name) ? [name] : []);
    if (fn === 'Ref' && typeof args === 'string') return known(args.split('.')[0]);
    if (fn === 'Fn::GetAtt') {
      if (typeof args === 'string') return known(args.split('.')[0]);
      if (Array.isArray(args) && typeof args[0] === 'string') return known(args[0]);
    }
    if (fn === 'Fn::Sub') {
      const text = typeof args === 'string' ? args : Array.isArray(args) && typeof args[0] === 'string' ? args[0] : '';
      const vars = Array.isArray(args) && isObject(args[1]) ? args[1] : {};
      return Context.subVariables(text).filter((v) => !(v in vars)).flatMap((v) => known(v.split('.')[0]));
    }
    return [];
  }

  /**
   * One problem per strongly connected component of the dependency graph (Tarjan's algorithm): the resources that
   * depend on each other in a circle, with the shortest cycle through the first of them in template order, each step
   * with the path of the reference that makes it.
   */
  checkCycles() {
    const graph = this.dependencyGraph();
    const order = [...Object.keys(this.resources), ...this.generated.keys()];
    const index = new Map();
    const low = new Map();
    const onStack = new Set();
    const stack = [];
    const components = [];
    let next = 0;
    const connect = (v) => {
      index.set(v, next);
      low.set(v, next++);
      stack.push(v);
      onStack.add(v);
      for (const { to } of graph.get(v) || []) {
        if (!index.has(to)) { connect(to); low.set(v, Math.min(low.get(v), low.get(to))); }
        else if (onStack.has(to)) low.set(v, Math.min(low.get(v), index.get(to)));
      }
      if (low.get(v) === index.get(v)) {
        const component = [];
        let w;
        do { w = stack.pop(); onStack.delete(w); component.push(w); } while (w !== v);
        components.push(component);
      }
    };
    for (const v of order) if (!index.has(v)) connect(v);
    const label = (n) => (this.generated.has(n) ? `${n} (generated by SAM for ${this.generated.get(n).by})` : n);
    for (const component of components) {
      const members = new Set(component);
      const first = order.find((n) => members.has(n));
      const selfLoop = (graph.get(first) || []).find((e) => e.to === first);
      if (component.length === 1 && !selfLoop) continue;
      // breadth-first from `first` inside the component, back to `first`
      const via = new Map();
      const queue = [first];
      let closing = selfLoop ? { from: first, edge: selfLoop } : null;
      while (queue.length && !closing) {
        const n = queue.shift();
        for (const e of graph.get(n) || []) {
          if (!members.has(e.to)) continue;
          if (e.to === first) { closing = { from: n, edge: e }; break; }
          if (!via.has(e.to)) { via.set(e.to, { from: n, edge: e }); queue.push(e.to); }
        }
      }
      const steps = [closing];
      for (let n = closing.from; n !== first; n = via.get(n).from) steps.unshift(via.get(n));
      const text = steps.map(({ from, edge }) => `${label(from)} -> ${label(edge.to)} (${edge.why || formatPath(edge.at)})`).join('; ');
      const owner = this.resources[first] !== undefined ? first : this.generated.get(first).by;
      const among = component.length > steps.length
        ? ` (${component.length} resources depend on each other: ${order.filter((n) => members.has(n)).join(', ')})` : '';
      this.report(['Resources', owner], 'cycle', `circular dependency, CloudFormation cannot order these resources: ${text}${among}`);
    }
  }

  // ------------------------------------------------------------ DefinitionSubstitutions (rule c)

  checkSubstitutions() {
    for (const [id, r] of Object.entries(this.resources)) {
      if (!isObject(r) || r.Type !== 'AWS::Serverless::StateMachine' || !isObject(r.Properties)) continue;
      const props = r.Properties;
      const at = ['Resources', id, 'Properties'];
      let text;
      let source;
      let sourceAt;
      if (typeof props.DefinitionUri === 'string' && !props.DefinitionUri.startsWith('s3://')) {
        const file = path.resolve(this.baseDir, props.DefinitionUri);
        sourceAt = [...at, 'DefinitionUri'];
        source = props.DefinitionUri;
        try {
          text = fs.readFileSync(file, 'utf8');
        } catch (err) {
          this.report(sourceAt, 'substitutions', `cannot read ${file} (${err.code || err.message}): sam deploy would fail to package it`);
          continue;
        }
      } else if (isObject(props.Definition)) {
        text = JSON.stringify(props.Definition);
        source = 'the inline Definition';
        sourceAt = [...at, 'Definition'];
      } else {
        continue;   // an S3 location: not readable here
      }
      const subs = props.DefinitionSubstitutions;
      if (subs !== undefined && !isObject(subs)) continue;   // the shape rule reports it
      const keys = Object.keys(subs || {});
      const used = new Map();   // key -> first line
      const lines = text.split('\n');
      lines.forEach((line, i) => {
        for (const m of line.matchAll(/\$\{([^}]+)\}/g)) if (!used.has(m[1])) used.set(m[1], i + 1);
      });
      for (const key of keys) {
        if (!used.has(key)) this.report([...at, 'DefinitionSubstitutions', key], 'substitutions', `\${${key}} does not occur in ${source}: the substitution is unused (a renamed or removed state?)`);
      }
      for (const [key, line] of used) {
        if (!keys.includes(key)) this.report(sourceAt, 'substitutions', `\${${key}} in ${source}${source.startsWith('the inline') ? '' : ` (line ${line})`} has no DefinitionSubstitutions key: Step Functions would get the literal text \${${key}}`);
      }
    }
  }
}

// ---------------------------------------------------------------- CLI

/**
 * Reads and parses a template file: {template, problems, lineOf(path)}; problems holds YAML short-form tags
 * (rule yaml). Throws with the file and position when it cannot be read or is not YAML.
 */
function readTemplate(file) {
  const YAML = require('yaml');
  const text = fs.readFileSync(file, 'utf8');
  const lineCounter = new YAML.LineCounter();
  const doc = YAML.parseDocument(text, { lineCounter, prettyErrors: false, uniqueKeys: true });
  if (doc.errors.length) {
    const e = doc.errors[0];
    const pos = lineCounter.linePos(e.pos[0]);
    throw new Error(`${file}:${pos.line}:${pos.col}: not YAML: ${e.message.split('\n')[0]}`);
  }
  const problems = [];
  YAML.visit(doc, {
    Node(_, node) {
      if (node.tag && node.tag.startsWith('!') && !node.tag.startsWith('!!')) {
        const pos = lineCounter.linePos(node.range[0]);
        problems.push({ path: `line ${pos.line}`, rule: 'yaml', reason: `short-form tag ${node.tag}: write the long form ({Ref: X}, {"Fn::GetAtt": [X, Attr]}, ...); the local stack reads this file with a plain YAML parser` });
      }
    },
  });
  const lineOf = (p) => {
    let node = doc.getIn(parsePath(p), true);
    for (let segments = parsePath(p); !node && segments.length; segments = segments.slice(0, -1)) node = doc.getIn(segments, true);
    return node && node.range ? lineCounter.linePos(node.range[0]).line : null;
  };
  return { template: doc.toJS({ maxAliasCount: -1 }), problems, lineOf };
}

function main(argv) {
  const file = argv[0];
  if (!file || argv.length > 1) {
    process.stderr.write('usage: node template-check.cjs <template.yaml>\n');
    return 2;
  }
  let read;
  try {
    read = readTemplate(file);
  } catch (err) {
    process.stdout.write(`ERROR ${err.message}\n`);
    return 2;
  }
  const problems = [...read.problems, ...checkTemplate(read.template, { baseDir: path.dirname(path.resolve(file)) })];
  for (const p of problems) {
    const line = p.rule === 'yaml' ? null : read.lineOf(p.path);
    process.stdout.write(`${file}${line ? `:${line}` : ''}: ${p.path}: ${p.reason} [${p.rule}]\n`);
  }
  if (problems.length === 0) { process.stdout.write(`OK ${file}\n`); return 0; }
  process.stdout.write(`${problems.length} problem${problems.length === 1 ? '' : 's'} in ${file}\n`);
  return 1;
}

module.exports = { checkTemplate, readTemplate, formatPath, parsePath };

if (require.main === module) process.exitCode = main(process.argv.slice(2));
