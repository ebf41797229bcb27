// Public API of endpoint identity: the endpoint key's proofs, shared by the agent (signs) and the API (verifies).
export {
  endpointKeyId,
  endpointPublicKeyPem,
  MAX_PROOF_CHARS,
  MAX_PUBLIC_KEY_PEM_CHARS,
  parseEndpointPublicKey,
  PROOF_PURPOSES,
  proofText,
  signEndpointProof,
  verifyEndpointProof,
  type ProofPurpose,
} from './endpoint-proof';
