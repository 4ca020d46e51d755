/**
 * The base URL this deployment advertises (challenges, the agent card, ESP links). It never
 * comes from a request header in AWS: a caller reaching API Gateway directly could otherwise
 * make the service sign an agent card, or build a challenge, naming a host of the caller's
 * choice. Sources, in order: PUBLIC_BASE_URL (a configured custom domain); the SSM parameter
 * named by PUBLIC_BASE_URL_PARAMETER, which CloudFormation sets to the CloudFront domain once
 * the distribution exists; otherwise nothing, and the request's Host is used (the local run).
 */
import { GetParameterCommand, SSMClient } from '@aws-sdk/client-ssm';

const URL_PATTERN = /^https?:\/\/[^\s/]+(\/[^\s]*)?$/;

export type ParameterReader = (name: string) => Promise<string | undefined>;

const ssmReader: ParameterReader = async (name) => {
  const out = await new SSMClient({}).send(new GetParameterCommand({ Name: name }));
  return out.Parameter?.Value;
};

export async function resolvePublicBaseUrl(env: NodeJS.ProcessEnv = process.env, read: ParameterReader = ssmReader): Promise<string | undefined> {
  const configured = env['PUBLIC_BASE_URL']?.trim();
  if (configured) {
    if (!URL_PATTERN.test(configured)) throw new Error(`PUBLIC_BASE_URL is not an http(s) URL: "${configured}"`);
    return configured.replace(/\/+$/, '');
  }
  const parameter = env['PUBLIC_BASE_URL_PARAMETER'];
  if (!parameter) return undefined;
  const value = (await read(parameter))?.trim();
  if (!value || !URL_PATTERN.test(value)) throw new Error(`SSM parameter ${parameter} holds no http(s) URL`);
  return value.replace(/\/+$/, '');
}
