import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { LogTagError, renderLogTag, type LogTagInfo } from './log-tag.js';

const info: LogTagInfo = {
  containerId: 'af4465dd1ebda95d20cc2d8b00d0e90966543ce09d8b5e737e4ea674ecaca66c',
  containerName: '/tg2',
  entrypoint: 'echo',
  args: ['x'],
  imageId: 'sha256:ceb441ea56509212802b9905b9e66f1877720ce4dc9d56b40b9513ffb3f0d96e',
  imageName: 'busybox',
  daemonName: 'docker',
  logPath: '',
  hostname: 'vm',
};

describe("the tag option's template (ParseLogTag)", () => {
  it('is the short ID by default', () => {
    assert.equal(renderLogTag(undefined, info), 'af4465dd1ebd');
    assert.equal(renderLogTag('', info), 'af4465dd1ebd');
  });

  it("prints logger.Info's fields and methods as dockerd 20.10 does (ImageID keeps its sha256: in its 12 characters)", () => {
    // the reference's tag for this template: sha256:ceb44|sha256:ceb4...|echo x|vm|/tg2||af44...
    assert.equal(
      renderLogTag('{{.ImageID}}|{{.ImageFullID}}|{{.Command}}|{{.Hostname}}|{{.ContainerName}}|{{.LogPath}}|{{.FullID}}', info),
      `sha256:ceb44|${info.imageId}|echo x|vm|/tg2||${info.containerId}`,
    );
    assert.equal(renderLogTag('{{.Name}}/{{.ImageName}}|{{.DaemonName}}', info), 'tg2/busybox|docker');
  });

  it("takes pipelines and dockerd's template functions", () => {
    assert.equal(renderLogTag('{{upper .Name}} {{ .ID }}', { ...info, containerName: '/Tg3' }), 'TG3 af4465dd1ebd');
    assert.equal(renderLogTag('{{.Name | lower}}-{{truncate .ID 4}}-{{pad .Name 1 2}}', info), 'tg2-af44- tg2  ');
    assert.equal(renderLogTag('{{split .Command " "}} {{json .Name}} {{title "web app"}}', info), '[echo x] "tg2" Web App');
    assert.equal(renderLogTag('a {{- .Name -}} b', info), 'atg2b');
  });

  it("fails as Go's template does", () => {
    assert.throws(() => renderLogTag('{{.Bogus}}', info), new LogTagError('template: log-tag:1:2: executing "log-tag" at <.Bogus>: can\'t evaluate field Bogus in type *logger.Info'));
    assert.throws(() => renderLogTag('{{.Name', info), new LogTagError('template: log-tag:1: unclosed action'));
    assert.throws(() => renderLogTag('{{nosuch .Name}}', info), new LogTagError('template: log-tag:1: function "nosuch" not defined'));
  });
});
