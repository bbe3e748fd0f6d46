import { describe, expect, it } from "vitest";
import { ENDPOINTS } from "@sift/contracts";
import { routeLabel, routeLabels } from "./metrics.ts";

describe("routeLabel", () => {
  it("names an endpoint's path after its entry, the probes after themselves, anything else other", () => {
    expect(routeLabel("POST", "/classify")).toBe("classify");
    expect(routeLabel("POST", "/challenge")).toBe("challenge");
    // A GET on a POST endpoint is a 404, still counted under the path's entry.
    expect(routeLabel("GET", "/verify")).toBe("verify");
    expect(routeLabel("GET", "/healthz")).toBe("healthz");
    expect(routeLabel("GET", "/classify/x")).toBe("other");
    expect(routeLabel("GET", "/wp-login.php")).toBe("other");
  });

  it("tells entries sharing a path apart by method, and covers a prefix entry's sub-paths", () => {
    // The console's two entries share /console, told apart by method.
    const label = routeLabels(ENDPOINTS);
    expect(label("GET", "/console/w/ws_1/sites")).toBe("console");
    expect(label("HEAD", "/console")).toBe("console");
    expect(label("POST", "/console/w/ws_1/sites")).toBe("consoleForms");
    expect(label("PUT", "/console/")).toBe("console");
    expect(label("GET", "/consoles")).toBe("other");
    expect(label("POST", "/classify")).toBe("classify");
  });
});
