'use strict';
// template-check.cjs against the repository's template.yaml: `npm test`.
// The real template passes with no problem; each other test changes one thing in a copy of it (a known defect
// per rule) and expects exactly the problems that change causes, with their path, rule and reason.
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { execFileSync } = require('node:child_process');
const { checkTemplate, readTemplate } = require('../template-check.cjs');

const REPO = path.join(__dirname, '..', '..', '..');
const TEMPLATE = path.join(REPO, 'template.yaml');
const real = readTemplate(TEMPLATE).template;

/** The problems of a copy of the real template changed by `change` (DefinitionUri files read from the repo). */
function problemsAfter(change) {
  const copy = structuredClone(real);
  change(copy);
  return checkTemplate(copy, { baseDir: REPO });
}

/** Asserts the problems are exactly these {path, rule} (in any order), each reason matching its pattern. */
function assertProblems(problems, expected) {
  const summary = JSON.stringify(problems, null, 1);
  assert.equal(problems.length, expected.length, `expected ${expected.length} problem(s), got ${summary}`);
  for (const { path: at, rule, reason } of expected) {
    const found = problems.find((p) => p.path === at && p.rule === rule);
    assert.ok(found, `no ${rule} problem at ${at} in ${summary}`);
    assert.match(found.reason, reason);
  }
}

const fn = (t, id) => t.Resources[id].Properties;

test('the real template.yaml has no problem', () => {
  assert.deepEqual(checkTemplate(real, { baseDir: REPO }), []);
});

test('the CLI prints OK for the real template, and each problem with its line for a broken one (exit 1)', () => {
  const cli = path.join(__dirname, '..', 'template-check.cjs');
  assert.equal(execFileSync(process.execPath, [cli, TEMPLATE], { encoding: 'utf8' }), `OK ${TEMPLATE}\n`);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'richter-template-'));
  const broken = path.join(dir, 'template.yaml');
  fs.writeFileSync(broken, fs.readFileSync(TEMPLATE, 'utf8')
    .replace('Type: AWS::SNS::Topic\n', 'Type: AWS::SNS::Topics\n')
    .replace('Value: {Ref: OnCallTopic}', 'Value: !Ref OnCallTopic'));
  let out;
  assert.throws(() => execFileSync(process.execPath, [cli, broken], { encoding: 'utf8', cwd: dir }), (err) => {
    out = err.stdout;
    return err.status === 1;
  });
  const lines = out.trim().split('\n');
  const topicLine = fs.readFileSync(broken, 'utf8').split('\n').indexOf('    Type: AWS::SNS::Topics') + 1;
  assert.ok(lines.includes(`${broken}:${topicLine}: Resources.OnCallTopic.Type: "AWS::SNS::Topics" is not a resource type of the CloudFormation or SAM specification; did you mean AWS::SNS::Topic? [type]`), out);
  assert.ok(lines.some((l) => /: line \d+: short-form tag !Ref: write the long form .* \[yaml\]$/.test(l)), out);
  assert.match(lines.at(-1), /^\d+ problems in /);
  fs.rmSync(dir, { recursive: true });
});

test('a: an unknown resource type', () => {
  assertProblems(problemsAfter((t) => { t.Resources.OnCallTopic.Type = 'AWS::SNS::Topics'; }), [
    { path: 'Resources.OnCallTopic.Type', rule: 'type', reason: /is not a resource type .*did you mean AWS::SNS::Topic\?/ },
  ]);
  assertProblems(problemsAfter((t) => { t.Resources.RichterHttpApi.Type = 'AWS::Serverless::HttpAPI'; }), [
    { path: 'Resources.RichterHttpApi.Type', rule: 'type', reason: /did you mean AWS::Serverless::HttpApi\?/ },
  ]);
});

test('a: a misspelled property, of a resource, of a nested type, of a SAM function (then also missing)', () => {
  assertProblems(problemsAfter((t) => {
    const bucket = fn(t, 'ReportsBucket');
    bucket.BucketEncription = bucket.BucketEncryption;
    delete bucket.BucketEncryption;
  }), [{ path: 'Resources.ReportsBucket.Properties.BucketEncription', rule: 'property', reason: /AWS::S3::Bucket has no property BucketEncription; did you mean BucketEncryption\?/ }]);
  assertProblems(problemsAfter((t) => { fn(t, 'ReportsBucket').PublicAccessBlockConfiguration.BlockPublicAcl = true; }), [
    { path: 'Resources.ReportsBucket.Properties.PublicAccessBlockConfiguration.BlockPublicAcl', rule: 'property', reason: /PublicAccessBlockConfiguration has no property BlockPublicAcl; did you mean BlockPublicAcls\?/ },
  ]);
  assertProblems(problemsAfter((t) => {
    const probe = fn(t, 'ProbeFunction');
    probe.Handlr = probe.Handler;
    delete probe.Handler;
  }), [
    { path: 'Resources.ProbeFunction.Properties.Handlr', rule: 'property', reason: /AWS::Serverless::Function has no property Handlr; did you mean Handler\?/ },
    { path: 'Resources.ProbeFunction.Properties', rule: 'required', reason: /needs Handler \(here or in Globals.Function\)/ },
  ]);
  assertProblems(problemsAfter((t) => { t.Resources.ReportsBucket.DeletionPolicyy = 'Retain'; }), [
    { path: 'Resources.ReportsBucket.DeletionPolicyy', rule: 'property', reason: /not a resource attribute .*did you mean DeletionPolicy\?/ },
  ]);
});

test('a: a value of the wrong primitive type or shape; Fn::If branches are checked, other intrinsics stand for any value', () => {
  assertProblems(problemsAfter((t) => { fn(t, 'FunctionErrorsAlarm').EvaluationPeriods = 'one'; }), [
    { path: 'Resources.FunctionErrorsAlarm.Properties.EvaluationPeriods', rule: 'shape', reason: /must be an Integer, not a string "one"/ },
  ]);
  assertProblems(problemsAfter((t) => { fn(t, 'ReportsBucket').PublicAccessBlockConfiguration.BlockPublicAcls = 'yes'; }), [
    { path: 'Resources.ReportsBucket.Properties.PublicAccessBlockConfiguration.BlockPublicAcls', rule: 'shape', reason: /must be a Boolean \(true or false\), not a string "yes"/ },
  ]);
  assertProblems(problemsAfter((t) => { fn(t, 'OnCallTopicPolicy').Topics = { Ref: 'OnCallTopic' }; }), []);
  assertProblems(problemsAfter((t) => { fn(t, 'OnCallTopicPolicy').Topics = 'arn:aws:sns:us-east-1:1:t'; }), [
    { path: 'Resources.OnCallTopicPolicy.Properties.Topics', rule: 'shape', reason: /must be a list of String, not a string/ },
  ]);
  assertProblems(problemsAfter((t) => { t.Globals.Function.Environment.Variables.RETRIES = [1, 2]; }), [
    { path: 'Globals.Function.Environment.Variables.RETRIES', rule: 'shape', reason: /must be a String, not a list/ },
  ]);
  assertProblems(problemsAfter((t) => {
    t.Conditions = { IsProd: { 'Fn::Equals': [{ Ref: 'StageName' }, 'prod'] } };
    fn(t, 'LinkBuilderFunction').MemorySize = { 'Fn::If': ['IsProd', 4096, 'plenty'] };
  }), [
    { path: 'Resources.LinkBuilderFunction.Properties.MemorySize.Fn::If[2]', rule: 'shape', reason: /must be an Integer, not a string "plenty"/ },
  ]);
});

test('a: a missing required property, of a resource and of a nested type', () => {
  assertProblems(problemsAfter((t) => { delete fn(t, 'RegistryTable').KeySchema; }), [
    { path: 'Resources.RegistryTable.Properties', rule: 'required', reason: /AWS::DynamoDB::Table requires KeySchema/ },
  ]);
  assertProblems(problemsAfter((t) => { delete fn(t, 'LeasesTable').TimeToLiveSpecification.Enabled; }), [
    { path: 'Resources.LeasesTable.Properties.TimeToLiveSpecification', rule: 'required', reason: /TimeToLiveSpecification requires Enabled/ },
  ]);
});

test('a: Globals apply to SAM functions as SAM merges them, and take only what SAM supports', () => {
  assertProblems(problemsAfter((t) => { delete t.Globals.Function.Runtime; }), Object.entries(real.Resources)
    .filter(([, r]) => r.Type === 'AWS::Serverless::Function')
    .map(([id]) => ({ path: `Resources.${id}.Properties`, rule: 'required', reason: /needs Runtime \(here or in Globals.Function\)/ })));
  assertProblems(problemsAfter((t) => {
    delete t.Globals.Function.Runtime;
    for (const r of Object.values(t.Resources)) if (r.Type === 'AWS::Serverless::Function') r.Properties.Runtime = 'java21';
  }), []);
  assertProblems(problemsAfter((t) => { t.Globals.Function.Policies = [{ DynamoDBReadPolicy: { TableName: { Ref: 'RunsTable' } } }]; }), [
    { path: 'Globals.Function.Policies', rule: 'globals', reason: /SAM does not take Policies from Globals.Function/ },
  ]);
  assertProblems(problemsAfter((t) => { t.Globals.Function.LoggingConfig.LogFormatt = 'JSON'; }), [
    { path: 'Globals.Function.LoggingConfig.LogFormatt', rule: 'property', reason: /has no property LogFormatt; did you mean LogFormat\?/ },
  ]);
});

test('a: SAM Policies: policy templates and their parameters, policy documents', () => {
  assertProblems(problemsAfter((t) => { fn(t, 'ReleaseLeasesFunction').Policies.push({ DynamoDBReedPolicy: { TableName: 'x' } }); }), [
    { path: 'Resources.ReleaseLeasesFunction.Properties.Policies[3].DynamoDBReedPolicy', rule: 'property', reason: /not a SAM policy template; did you mean DynamoDBReadPolicy\?/ },
  ]);
  assertProblems(problemsAfter((t) => { fn(t, 'ReleaseLeasesFunction').Policies[0].DynamoDBReadPolicy = { Table: { Ref: 'RunsTable' } }; }), [
    { path: 'Resources.ReleaseLeasesFunction.Properties.Policies[0].DynamoDBReadPolicy.Table', rule: 'property', reason: /has no property Table; did you mean TableName\?/ },
    { path: 'Resources.ReleaseLeasesFunction.Properties.Policies[0].DynamoDBReadPolicy', rule: 'required', reason: /requires TableName/ },
  ]);
  assertProblems(problemsAfter((t) => { fn(t, 'ReleaseLeasesFunction').Policies.push({ EventBridgePutEventsPolicy: {} }); }), [
    { path: 'Resources.ReleaseLeasesFunction.Properties.Policies[3].EventBridgePutEventsPolicy', rule: 'required', reason: /requires EventBusName/ },
  ]);
});

test('a: SAM event sources: a bad HttpApi event property, authorizer or route; a bad ScheduleV2 property; an unknown Type', () => {
  assertProblems(problemsAfter((t) => {
    const p = fn(t, 'PlanApiFunction').Events.ListAudit.Properties;
    p.Methods = p.Method;
    delete p.Method;
  }), [
    { path: 'Resources.PlanApiFunction.Properties.Events.ListAudit.Properties.Methods', rule: 'property', reason: /HttpApi event Properties has no property Methods; did you mean Method\?/ },
  ]);
  assertProblems(problemsAfter((t) => { fn(t, 'PlanApiFunction').Events.ListAudit.Properties.TimeoutInMillis = 'soon'; }), [
    { path: 'Resources.PlanApiFunction.Properties.Events.ListAudit.Properties.TimeoutInMillis', rule: 'shape', reason: /must be an Integer, not a string "soon"/ },
  ]);
  assertProblems(problemsAfter((t) => { fn(t, 'PlanApiFunction').Events.OpenApi.Properties.Auth.Authorizer = 'Oidc'; }), [
    { path: 'Resources.PlanApiFunction.Properties.Events.OpenApi.Properties.Auth.Authorizer', rule: 'event', reason: /Oidc is not an authorizer of RichterHttpApi \(NONE, OidcAuthorizer\)/ },
  ]);
  assertProblems(problemsAfter((t) => { fn(t, 'PlanApiFunction').Events.ListAudit.Properties.Path = '/safety'; }), [
    { path: 'Resources.PlanApiFunction.Properties.Events.ListAudit.Properties', rule: 'event', reason: /route GET \/safety of RichterHttpApi is already declared by Resources.PlanApiFunction.Properties.Events.GetSafetyConfig/ },
  ]);
  assertProblems(problemsAfter((t) => { fn(t, 'PlanApiFunction').Events.ListAudit.Properties.ApiId = { Ref: 'RichterEventBus' }; }), [
    { path: 'Resources.PlanApiFunction.Properties.Events.ListAudit.Properties.ApiId', rule: 'event', reason: /ApiId names RichterEventBus, of type AWS::Events::EventBus, not an AWS::Serverless::HttpApi/ },
  ]);
  assertProblems(problemsAfter((t) => {
    const p = fn(t, 'LinkBuilderFunction').Events.Rebuild.Properties;
    p.ScheduleExpresion = p.ScheduleExpression;
    delete p.ScheduleExpression;
  }), [
    { path: 'Resources.LinkBuilderFunction.Properties.Events.Rebuild.Properties.ScheduleExpresion', rule: 'property', reason: /ScheduleV2 event Properties has no property ScheduleExpresion; did you mean ScheduleExpression\?/ },
    { path: 'Resources.LinkBuilderFunction.Properties.Events.Rebuild.Properties', rule: 'required', reason: /requires ScheduleExpression/ },
  ]);
  assertProblems(problemsAfter((t) => { fn(t, 'NightlyCheckStateMachine').Events.Nightly.Properties.OmitName = 'sometimes'; }), [
    { path: 'Resources.NightlyCheckStateMachine.Properties.Events.Nightly.Properties.OmitName', rule: 'shape', reason: /must be a Boolean/ },
  ]);
  assertProblems(problemsAfter((t) => { fn(t, 'NightlyCheckStateMachine').Events.Nightly.Type = 'HttpApi'; }), [
    { path: 'Resources.NightlyCheckStateMachine.Properties.Events.Nightly.Type', rule: 'event', reason: /"HttpApi" is not an event source type of AWS::Serverless::StateMachine/ },
  ]);
});

test('b: a dangling Ref, DependsOn, a Ref SAM resolves (a generated role), and a condition that Refs a resource', () => {
  assertProblems(problemsAfter((t) => { t.Globals.Function.Environment.Variables.RUNS_TABLE = { Ref: 'RunTable' }; }), [
    { path: 'Globals.Function.Environment.Variables.RUNS_TABLE.Ref', rule: 'ref', reason: /RunTable is not a parameter, resource or pseudo parameter of this template; did you mean RunsTable\?/ },
  ]);
  assertProblems(problemsAfter((t) => { t.Resources.OnCallRule.DependsOn = ['OnCallTopic', 'OnCallTopicPolicyy']; }), [
    { path: 'Resources.OnCallRule.DependsOn[1]', rule: 'ref', reason: /"OnCallTopicPolicyy", which is not a resource of this template; did you mean OnCallTopicPolicy\?/ },
  ]);
  assertProblems(problemsAfter((t) => {
    fn(t, 'OnCallTopicPolicy').PolicyDocument.Statement.push({ Effect: 'Allow', Principal: { AWS: { 'Fn::GetAtt': ['ReportFunctionRole', 'Arn'] } }, Action: 'sns:Publish', Resource: { Ref: 'OnCallTopic' } });
  }), []);
});

test('b: Ref <Function>.Alias needs AutoPublishAlias, on the function or in Globals.Function as SAM merges it', () => {
  // the real template sets it in Globals only, and the state machines Ref every function's .Alias
  assert.equal(real.Globals.Function.AutoPublishAlias, 'live');
  assert.equal(fn(real, 'LoadTestRunStateMachine').DefinitionSubstitutions.ProbeFunctionArn.Ref, 'ProbeFunction.Alias');
  assertProblems(problemsAfter((t) => { delete t.Globals.Function.AutoPublishAlias; fn(t, 'ProbeFunction').AutoPublishAlias = 'live'; }),
    Object.entries(real.Resources)
      .filter(([, r]) => r.Type === 'AWS::Serverless::StateMachine')
      .flatMap(([id, r]) => Object.entries(r.Properties.DefinitionSubstitutions)
        .filter(([, v]) => v.Ref && v.Ref.endsWith('.Alias') && v.Ref !== 'ProbeFunction.Alias')
        .map(([key, v]) => ({ path: `Resources.${id}.Properties.DefinitionSubstitutions.${key}.Ref`, rule: 'ref',
          reason: new RegExp(`SAM makes ${v.Ref.replace('.', '\\.')} only for a function with AutoPublishAlias`) }))));
});

test('b: a GetAtt attribute the type lacks (CloudFormation and SAM types), and a GetAtt of a parameter', () => {
  assertProblems(problemsAfter((t) => { fn(t, 'ExecutionEndedPermission').SourceArn = { 'Fn::GetAtt': ['ExecutionEndedRule', 'RuleArn'] }; }), [
    { path: 'Resources.ExecutionEndedPermission.Properties.SourceArn.Fn::GetAtt', rule: 'getatt', reason: /AWS::Events::Rule has no attribute RuleArn \(it has Arn\)/ },
  ]);
  assertProblems(problemsAfter((t) => { fn(t, 'LoadTestRunStateMachine').DefinitionSubstitutions.ReportFunctionArn = { 'Fn::GetAtt': ['ReportFunction', 'FunctionArn'] }; }), [
    { path: 'Resources.LoadTestRunStateMachine.Properties.DefinitionSubstitutions.ReportFunctionArn.Fn::GetAtt', rule: 'getatt', reason: /AWS::Serverless::Function has no attribute FunctionArn \(it has Arn, .*\)/ },
  ]);
  assertProblems(problemsAfter((t) => { fn(t, 'ExecutionEndedPermission').SourceArn = { 'Fn::GetAtt': 'StageName.Arn' }; }), [
    { path: 'Resources.ExecutionEndedPermission.Properties.SourceArn.Fn::GetAtt', rule: 'getatt', reason: /StageName is a parameter, not a resource/ },
  ]);
});

test('b: an unresolved Fn::Sub variable; ${!Literal} and the Sub map resolve', () => {
  assertProblems(problemsAfter((t) => { fn(t, 'RichterEventBus').Name = { 'Fn::Sub': 'richter-${Stage}' }; }), [
    { path: 'Resources.RichterEventBus.Properties.Name.Fn::Sub', rule: 'sub', reason: /\$\{Stage\}: Stage is not a parameter, resource or pseudo parameter of this template; did you mean StageName\?/ },
  ]);
  assertProblems(problemsAfter((t) => { fn(t, 'OnCallTopic').DisplayName = { 'Fn::Sub': 'Richter at ${RichterHttpApi.ApiEndpont}' }; }), [
    { path: 'Resources.OnCallTopic.Properties.DisplayName.Fn::Sub', rule: 'sub', reason: /\$\{RichterHttpApi.ApiEndpont\}: AWS::Serverless::HttpApi has no attribute ApiEndpont .*did you mean ApiEndpoint\?/ },
  ]);
  assertProblems(problemsAfter((t) => { fn(t, 'RichterEventBus').Name = { 'Fn::Sub': ['${!Literal}-${Suffix}-${AWS::Region}', { Suffix: 'x' }] }; }), []);
});

test('b: a circular dependency, through a SAM function and through the routes SAM adds to an HttpApi', () => {
  assertProblems(problemsAfter((t) => {
    fn(t, 'ReportFunction').Environment.Variables.REAPER_RULE_ARN = { 'Fn::GetAtt': ['ExecutionEndedRule', 'Arn'] };
  }), [
    { path: 'Resources.ReportFunction', rule: 'cycle', reason: /^circular dependency, CloudFormation cannot order these resources: ReportFunction -> ExecutionEndedRule \(Resources.ReportFunction.Properties.Environment.Variables.REAPER_RULE_ARN.Fn::GetAtt\); ExecutionEndedRule -> ReportFunction \(Resources.ExecutionEndedRule.Properties.Targets\[0\].Arn.Fn::GetAtt\) \(4 resources depend on each other: ReportFunction, LoadTestRunStateMachine, ExecutionEndedRule, LoadTestRunStateMachineRole\)$/ },
  ]);
  assertProblems(problemsAfter((t) => {
    fn(t, 'PlanApiFunction').Environment.Variables.API_URL = { 'Fn::Sub': 'https://${RichterHttpApi}.execute-api.${AWS::Region}.amazonaws.com' };
  }), [
    { path: 'Resources.PlanApiFunction', rule: 'cycle', reason: /^circular dependency, CloudFormation cannot order these resources: PlanApiFunction -> RichterHttpApi \(Resources.PlanApiFunction.Properties.Environment.Variables.API_URL.Fn::Sub\); RichterHttpApi -> PlanApiFunction \(Resources.PlanApiFunction.Properties.Events.RegisterService.Properties.ApiId: SAM writes PlanApiFunction's ARN into the routes of RichterHttpApi\)$/ },
  ]);
  assertProblems(problemsAfter((t) => { t.Resources.RegistryTable.DependsOn = 'ProbeFunction'; }), [
    { path: 'Resources.ProbeFunction', rule: 'cycle', reason: /ProbeFunction -> RegistryTable \(Globals.Function.Environment.Variables.REGISTRY_TABLE.Ref\); RegistryTable -> ProbeFunction \(Resources.RegistryTable.DependsOn\)$/ },
  ]);
});

test('c: a DefinitionSubstitutions key the ASL file does not use, and a ${Key} of the ASL file without a key', () => {
  assertProblems(problemsAfter((t) => { fn(t, 'NightlyCheckStateMachine').DefinitionSubstitutions.ReportFunctionArn = { 'Fn::GetAtt': ['ReportFunction', 'Arn'] }; }), [
    { path: 'Resources.NightlyCheckStateMachine.Properties.DefinitionSubstitutions.ReportFunctionArn', rule: 'substitutions', reason: /\$\{ReportFunctionArn\} does not occur in statemachines\/nightly-check.asl.json: the substitution is unused/ },
  ]);
  assertProblems(problemsAfter((t) => { delete fn(t, 'NightlyCheckStateMachine').DefinitionSubstitutions.ProbeFunctionArn; }), [
    { path: 'Resources.NightlyCheckStateMachine.Properties.DefinitionUri', rule: 'substitutions', reason: /\$\{ProbeFunctionArn\} in statemachines\/nightly-check.asl.json \(line \d+\) has no DefinitionSubstitutions key/ },
  ]);
  assertProblems(problemsAfter((t) => { fn(t, 'NightlyCheckStateMachine').DefinitionUri = 'statemachines/nightly.asl.json'; }), [
    { path: 'Resources.NightlyCheckStateMachine.Properties.DefinitionUri', rule: 'substitutions', reason: /cannot read .*nightly.asl.json \(ENOENT\)/ },
  ]);
});

test('d: Outputs and Conditions resolve their Refs and GetAtts', () => {
  assertProblems(problemsAfter((t) => { t.Outputs.EventBusName.Value = { Ref: 'RichterEventBuss' }; }), [
    { path: 'Outputs.EventBusName.Value.Ref', rule: 'ref', reason: /RichterEventBuss is not a parameter, resource or pseudo parameter .*did you mean RichterEventBus\?/ },
  ]);
  assertProblems(problemsAfter((t) => { t.Outputs.ApiUrl.Value = { 'Fn::GetAtt': ['RichterHttpApi', 'Url'] }; }), [
    { path: 'Outputs.ApiUrl.Value.Fn::GetAtt', rule: 'getatt', reason: /has no attribute Url \(it has ApiEndpoint, ApiId\)/ },
  ]);
  assertProblems(problemsAfter((t) => { t.Outputs.DashboardName.Valu = t.Outputs.DashboardName.Value; delete t.Outputs.DashboardName.Value; }), [
    { path: 'Outputs.DashboardName.Valu', rule: 'output', reason: /not an output key .*did you mean Value\?/ },
    { path: 'Outputs.DashboardName', rule: 'output', reason: /an output needs a Value/ },
  ]);
  assertProblems(problemsAfter((t) => {
    t.Conditions = { IsProd: { 'Fn::Equals': [{ Ref: 'RichterEventBus' }, 'prod'] }, Both: { 'Fn::And': [{ Condition: 'IsProd' }, { Condition: 'IsDev' }] } };
  }), [
    { path: 'Conditions.IsProd.Fn::Equals[0].Ref', rule: 'ref', reason: /a condition may Ref only parameters and pseudo parameters, not the resource RichterEventBus/ },
    { path: 'Conditions.Both.Fn::And[1].Condition', rule: 'condition', reason: /"IsDev" is not a condition of Conditions/ },
  ]);
  assertProblems(problemsAfter((t) => { t.Resources.OnCallRule.Condition = 'IsProd'; }), [
    { path: 'Resources.OnCallRule.Condition', rule: 'condition', reason: /"IsProd" is not a condition of Conditions/ },
  ]);
});
