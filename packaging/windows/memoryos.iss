; Inno Setup script for MemoryOS Desktop on Windows (x64). NOT TESTED HERE: see packaging/README.md.
; Build the app first on Windows:  py packaging\build.py --no-archive --build-dir build\pyi
; then:  iscc /DAppVersion=0.1.0 /DDistDir=..\..\build\pyi\dist\memoryos packaging\windows\memoryos.iss

#ifndef AppVersion
  #define AppVersion "0.1.0"
#endif
#ifndef DistDir
  #define DistDir "..\..\build\pyi\dist\memoryos"
#endif

[Setup]
AppId={{6E0C1B7A-4F0B-4B39-9C1E-5D2A7F3E8B11}
AppName=MemoryOS
AppVersion={#AppVersion}
AppPublisher=MemoryOS Desktop
AppComments=A private assistant that remembers you, offline, in one encrypted file
DefaultDirName={autopf}\MemoryOS
DefaultGroupName=MemoryOS
DisableProgramGroupPage=yes
; per-user install by default, no administrator rights needed
PrivilegesRequired=lowest
PrivilegesRequiredOverridesAllowed=dialog
ArchitecturesAllowed=x64compatible
ArchitecturesInstallIn64BitMode=x64compatible
OutputDir=..\..\build\installer
OutputBaseFilename=memoryos-{#AppVersion}-windows-x64-setup
SetupIconFile=memoryos.ico
UninstallDisplayIcon={app}\MemoryOS.exe
Compression=lzma2/max
SolidCompression=yes
WizardStyle=modern

[Tasks]
Name: "desktopicon"; Description: "{cm:CreateDesktopIcon}"; GroupDescription: "{cm:AdditionalIcons}"; Flags: unchecked

[Files]
; the whole PyInstaller folder: MemoryOS.exe (windowed), memoryos.exe (terminal, --self-test, CLI)
Source: "{#DistDir}\*"; DestDir: "{app}"; Flags: ignoreversion recursesubdirs createallsubdirs

[Icons]
Name: "{group}\MemoryOS"; Filename: "{app}\MemoryOS.exe"
Name: "{group}\MemoryOS self-test"; Filename: "{cmd}"; Parameters: "/k ""{app}\memoryos.exe"" --self-test"
Name: "{autodesktop}\MemoryOS"; Filename: "{app}\MemoryOS.exe"; Tasks: desktopicon

[Run]
Filename: "{app}\MemoryOS.exe"; Description: "{cm:LaunchProgram,MemoryOS}"; Flags: nowait postinstall skipifsilent

; The person's memory (%LOCALAPPDATA%\MemoryOS) is left in place on uninstall on purpose:
; it is erased from inside the app, never as a side effect of removing the program.
