//! `/healthz`, `/readyz`, `/openapi.json`, `/docs`, and the problem+json answers for unknown
//! routes and methods.

use djambi_e2e::{Backend, TestServer, backend_tests};

fn healthz_and_readyz(backend: Backend) {
    let s = TestServer::start(backend);
    assert_eq!(s.get("/healthz", None).expect(200)["status"], "ok");
    assert_eq!(s.get("/readyz", None).expect(200)["status"], "ready");
}

fn unknown_route_is_a_problem(backend: Backend) {
    let s = TestServer::start(backend);
    let r = s.get("/nope", None);
    r.problem(404, "not-found");
    assert!(r.json["detail"].as_str().unwrap().contains("/nope"));
    s.get("/v1/nothing/here", None).problem(404, "not-found");
    // A known path with a method it does not have is not an HTML page either.
    let r = s.send(s.request(reqwest::Method::PUT, "/v1/accounts"));
    r.problem(404, "not-found");
    // Swagger UI's own misses are problems too.
    s.get("/docs/no-such-file.js", None)
        .problem(404, "not-found");
}

fn openapi_is_served(backend: Backend) {
    let s = TestServer::start(backend);
    let r = s.get("/openapi.json", None);
    let doc = r.expect(200);
    assert!(r.content_type().starts_with("application/json"));
    assert_eq!(r.text, djambi_api::openapi::document_json());
    assert_eq!(doc["openapi"], "3.1.0");
    assert_eq!(doc["info"]["title"], "Djambi correspondence server");
}

fn docs_page_works_offline(backend: Backend) {
    let s = TestServer::start(backend);
    let r = s.get("/docs", None);
    assert_eq!(r.status.as_u16(), 308);
    assert_eq!(r.header("location"), Some("/docs/"));
    let page = s.get("/docs/", None);
    page.expect(200);
    assert!(page.content_type().starts_with("text/html"));
    assert!(page.text.contains("swagger"), "{}", page.text);
    // Every script and stylesheet the page loads is served by us, not a CDN.
    for attr in ["src=\"", "href=\""] {
        for piece in page.text.split(attr).skip(1) {
            let target = piece.split('"').next().unwrap_or_default();
            assert!(
                !target.starts_with("http://")
                    && !target.starts_with("https://")
                    && !target.starts_with("//"),
                "the docs page loads {target} from the network"
            );
            if target.ends_with(".js") || target.ends_with(".css") {
                let asset = s.get(&format!("/docs/{}", target.trim_start_matches("./")), None);
                assert_eq!(asset.status.as_u16(), 200, "asset {target}");
            }
        }
    }
    let init = s.get("/docs/swagger-initializer.js", None);
    init.expect(200);
    assert!(init.text.contains("/openapi.json"), "{}", init.text);
}

backend_tests!(
    healthz_and_readyz,
    unknown_route_is_a_problem,
    openapi_is_served,
    docs_page_works_offline,
);

/// With the database gone, `/readyz` says 503 (a problem), `/healthz` still 200.
#[test]
fn readyz_fails_without_the_database_pg() {
    let s = TestServer::start_with(Backend::Postgres, &[("DJAMBI_DB_TIMEOUT", "1s")]);
    s.get("/readyz", None).expect(200);
    s.break_database();
    let r = s.get("/readyz", None);
    r.problem(503, "unavailable");
    assert!(r.header("retry-after").is_some());
    s.get("/healthz", None).expect(200);
}
