/**
 * The skill-pack rules of the build's security scan: what a pack an agent will follow can carry
 * that a secret scanner does not look for. The categories follow the threat taxonomy of Cisco AI
 * Defense's skill-scanner (prompt injection and hidden instructions, command injection, data
 * exfiltration, obfuscation, hidden Unicode, credential access, persistence); the patterns are
 * ours, one regex each, matched line by line.
 *
 * Severity says what following the line could do to the agent's machine or data: `high` is
 * enough to make a pack unsafe (is_safe false), `medium` and `low` are shown for review.
 */
import type { SecuritySeverity } from '../lambdas/contract/security-report';

export interface SkillRule {
  id: string;
  category:
    'prompt_injection' | 'command_injection' | 'data_exfiltration' | 'obfuscation' | 'hidden_unicode' | 'credential_access' | 'persistence';
  severity: SecuritySeverity;
  description: string;
  pattern: RegExp;
  remediation: string;
}

/** Bumped whenever a rule is added, removed or changed; the report names it. */
export const SKILL_RULES_VERSION = '1.0.0';

export const SKILL_RULES: readonly SkillRule[] = [
  {
    id: 'SM-PI-001',
    category: 'prompt_injection',
    severity: 'high',
    description: 'Tells the reader to ignore, disregard or forget its earlier instructions',
    pattern:
      /\b(?:ignore|disregard|forget|override)\s+(?:all\s+|any\s+)?(?:of\s+)?(?:the\s+|your\s+)?(?:previous|prior|above|earlier|preceding|system)\s+(?:instructions?|prompts?|rules|directions|guidelines)\b/i,
    remediation: 'Remove the instruction; a pack may direct the task, never the agent’s own rules.',
  },
  {
    id: 'SM-PI-002',
    category: 'prompt_injection',
    severity: 'high',
    description: 'An HTML comment (invisible when rendered) that addresses the agent',
    pattern:
      /<!--[^>]*?\b(?:agent|assistant|AI|LLM|model|you must|you should|do not tell|don['’]t tell|without telling|secretly|system prompt)\b[^>]*?-->/i,
    remediation: 'Put every instruction in visible text, or remove it.',
  },
  {
    id: 'SM-PI-003',
    category: 'prompt_injection',
    severity: 'medium',
    description: 'Tries to change who the agent is or unlock a mode (jailbreak phrasing)',
    pattern:
      /\b(?:you are now (?:an? )?(?:unrestricted|jailbroken|DAN|different)|new system prompt|enable developer mode|act as an? unrestricted)\b/i,
    remediation: 'Remove the role change; describe the task instead.',
  },
  {
    id: 'SM-CI-001',
    category: 'command_injection',
    severity: 'high',
    description: 'Pipes a downloaded script straight into a shell (curl … | sh)',
    pattern: /\b(?:curl|wget)\b[^|\n]*\|\s*(?:sudo\s+)?(?:ba|z|da|k)?sh\b/i,
    remediation: 'Download, verify (checksum or signature) and read the script, then run the file.',
  },
  {
    id: 'SM-CI-002',
    category: 'command_injection',
    severity: 'high',
    description: 'Evaluates the output of a download',
    pattern: /\beval\s*["'(]?\s*"?\$\(\s*(?:curl|wget)\b/i,
    remediation: 'Never eval fetched text; pin and verify what you run.',
  },
  {
    id: 'SM-EX-001',
    category: 'data_exfiltration',
    severity: 'high',
    description: 'Uploads a credential or key file to a remote host',
    pattern:
      /\b(?:curl|wget|scp|rsync|nc|netcat)\b[^\n]*?(?:\.env\b|id_rsa|id_ed25519|\.aws\/credentials|\.ssh\/|\.netrc|\.git-credentials|\/etc\/passwd|\/etc\/shadow)/i,
    remediation: 'Remove the transfer; credentials never leave the machine they belong to.',
  },
  {
    id: 'SM-EX-002',
    category: 'data_exfiltration',
    severity: 'high',
    description: 'Sends the environment (where secrets live) over the network',
    pattern: /\b(?:env|printenv)\b\s*\|\s*(?:curl|wget|nc|netcat)\b|\$\((?:env|printenv)\)[^\n]*\b(?:curl|wget)\b/i,
    remediation: 'Remove it; send only the fields the task needs, never the environment.',
  },
  {
    id: 'SM-OB-001',
    category: 'obfuscation',
    severity: 'high',
    description: 'Decodes a base64 or hex payload and runs it',
    pattern: /(?:base64\s+(?:-d|--decode)|xxd\s+-r)[^\n]*\|\s*(?:ba|z)?sh\b|\beval\s*\(\s*(?:atob|Buffer\.from)\s*\(/i,
    remediation: 'Ship the code in clear text so it can be read before it runs.',
  },
  {
    id: 'SM-OB-002',
    category: 'obfuscation',
    severity: 'low',
    description: 'A long base64 blob (200+ characters) that a reader cannot check by eye',
    pattern: /[A-Za-z0-9+/]{200,}={0,2}/,
    remediation: 'Replace the blob with the readable content, or say what it is and how to verify it.',
  },
  {
    id: 'SM-OB-003',
    category: 'obfuscation',
    severity: 'low',
    description: 'A long run of hex escapes (16+ bytes)',
    pattern: /(?:\\x[0-9a-fA-F]{2}){16,}/,
    remediation: 'Write the bytes as readable text or explain what they encode.',
  },
  {
    id: 'SM-UC-001',
    category: 'hidden_unicode',
    severity: 'high',
    description: 'Zero-width characters, which can hide text from a human reviewer',
    // Alternatives, not a class: a class holding U+200D (the joiner) reads as one joined sequence.
    pattern: /\u200B|\u200C|\u200D|\u2060|\uFEFF/,
    remediation: 'Remove the zero-width characters.',
  },
  {
    id: 'SM-UC-002',
    category: 'hidden_unicode',
    severity: 'high',
    description: 'Bidirectional control characters, which can make text read differently than it runs',
    pattern: /[\u202A-\u202E\u2066-\u2069]/,
    remediation: 'Remove the bidi control characters.',
  },
  {
    id: 'SM-CA-001',
    category: 'credential_access',
    severity: 'medium',
    description: 'Reads a credential store of the machine (cloud keys, SSH keys, token files)',
    pattern:
      /(?:cat|less|more|head|tail|cp|open|read(?:File)?(?:Sync)?\(?)\s*['"]?(?:~|\$HOME|\/root|\/home\/[\w.-]+)\/\.(?:aws\/credentials|ssh\/id_\w+|netrc|docker\/config\.json|kube\/config|git-credentials|npmrc|pypirc)/i,
    remediation: 'Use the tool’s own credential chain instead of reading the file; never print it.',
  },
  {
    id: 'SM-PE-001',
    category: 'persistence',
    severity: 'medium',
    description: 'Installs itself to run again: shell profiles, cron, services, SSH authorized keys',
    pattern:
      />>\s*(?:~|\$HOME)\/\.(?:bashrc|zshrc|profile|bash_profile)\b|\bcrontab\s+-[^l\s]|\bsystemctl\s+enable\b|\blaunchctl\s+load\b|>>\s*\S*authorized_keys\b/i,
    remediation: 'Leave the machine as the task found it; say what to install and let the operator do it.',
  },
];
