//! The TLS client of live mode: kube-rs's rustls configuration, with one addition that kubectl
//! (Go's crypto/x509) has and webpki lacks: a server certificate that is itself one of the
//! kubeconfig's `certificate-authority` certificates (a self-signed serving certificate, as
//! single-binary and test clusters use) is trusted when it names the server, as Go trusts a leaf
//! found in its root pool. Anything else is verified by webpki against those roots. The
//! handshake signatures are always checked, so the server proves it holds that certificate's key.

use std::sync::Arc;

use rustls::client::danger::{HandshakeSignatureValid, ServerCertVerified, ServerCertVerifier};
use rustls::pki_types::{CertificateDer, ServerName, UnixTime};
use rustls::{DigitallySignedStruct, SignatureScheme};

/// Trusts the pinned certificates as they are (when they name the server), and delegates the rest.
#[derive(Debug)]
pub struct Pinned {
    pinned: Vec<CertificateDer<'static>>,
    inner: Arc<dyn ServerCertVerifier>,
}

impl Pinned {
    /// A verifier for the DER certificates of a kubeconfig's `certificate-authority`; `None`
    /// when they do not make a root store.
    pub fn new(roots: &[Vec<u8>]) -> Option<Self> {
        let pinned: Vec<CertificateDer<'static>> = roots.iter().map(|r| CertificateDer::from(r.clone())).collect();
        let mut store = rustls::RootCertStore::empty();
        let (added, _) = store.add_parsable_certificates(pinned.iter().cloned());
        if added == 0 {
            return None;
        }
        // The process's crypto provider, as kube-rs's `ClientConfig::builder()` takes it (ring).
        let inner = rustls::client::WebPkiServerVerifier::builder(Arc::new(store)).build().ok()?;
        Some(Pinned { pinned, inner })
    }
}

impl ServerCertVerifier for Pinned {
    fn verify_server_cert(
        &self,
        end_entity: &CertificateDer<'_>,
        intermediates: &[CertificateDer<'_>],
        server_name: &ServerName<'_>,
        ocsp_response: &[u8],
        now: UnixTime,
    ) -> Result<ServerCertVerified, rustls::Error> {
        if self.pinned.iter().any(|p| p.as_ref() == end_entity.as_ref()) {
            let parsed = rustls::server::ParsedCertificate::try_from(end_entity)?;
            rustls::client::verify_server_name(&parsed, server_name)?;
            return Ok(ServerCertVerified::assertion());
        }
        self.inner.verify_server_cert(end_entity, intermediates, server_name, ocsp_response, now)
    }

    fn verify_tls12_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        self.inner.verify_tls12_signature(message, cert, dss)
    }

    fn verify_tls13_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        self.inner.verify_tls13_signature(message, cert, dss)
    }

    fn supported_verify_schemes(&self) -> Vec<SignatureScheme> {
        self.inner.supported_verify_schemes()
    }
}

/// The kube-rs client for `config`: kube-rs's own stack (base URI, auth, extra headers, TLS
/// with the config's client identity), with [`Pinned`] as the verifier where the kubeconfig names
/// a certificate authority and does not skip verification.
pub fn client(config: kube::Config) -> Result<kube::Client, String> {
    use hyper_util::rt::TokioExecutor;
    use kube::client::ConfigExt;
    let mut tls = config.rustls_client_config().map_err(|e| e.to_string())?;
    if !config.accept_invalid_certs {
        if let Some(pinned) = config.root_cert.as_deref().and_then(Pinned::new) {
            tls.dangerous().set_certificate_verifier(Arc::new(pinned));
        }
    }
    let mut http = hyper_util::client::legacy::connect::HttpConnector::new();
    http.enforce_http(false);
    let https = hyper_rustls::HttpsConnectorBuilder::new().with_tls_config(tls).https_or_http().enable_http1().wrap_connector(http);
    let service = tower::ServiceBuilder::new()
        .layer(config.base_uri_layer())
        .layer(config.extra_headers_layer().map_err(|e| e.to_string())?)
        .option_layer(config.auth_layer().map_err(|e| e.to_string())?)
        .map_err(tower::BoxError::from)
        .service(hyper_util::client::legacy::Client::builder(TokioExecutor::new()).build(https));
    Ok(kube::Client::new(service, config.default_namespace))
}
