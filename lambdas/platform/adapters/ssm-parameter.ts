import { GetParameterCommand, SSMClient } from '@aws-sdk/client-ssm';
import { traced } from '../tracer';

/** Reads one SSM parameter's value (the advertised base URL the stack writes at deploy). */
export async function ssmParameter(name: string): Promise<string | undefined> {
  const out = await traced(new SSMClient({})).send(new GetParameterCommand({ Name: name }));
  return out.Parameter?.Value;
}
